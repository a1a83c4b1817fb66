/* hcpumf glue: host services and the HDL sections. The services table the Rust core calls
 * (console log, main storage, CPU states and clocks, arming), the hooks Hercules calls
 * (console commands, resets) and the module's dependency, registration, instruction and
 * final sections, which the Rust cdylib's exported HDL entry points forward to. The
 * services are shared; SDL Hyperion's hooks and sections are in hyperion.c. */

#include "hstdinc.h"

#ifndef _HCPUMF_HOST_C_
#define _HCPUMF_HOST_C_
#endif

#include "hercules.h"
#include "opcode.h"
#include "inline.h"

#include "internal.h"

/* The HDL entry points are exported by the Rust side (see hcpumf_hdl in glue.h); compat.h
 * gives the glue's sections the names hcpumf_glue_*. */

#if !defined(_GEN_ARCH)

#define _GEN_ARCH HCPUMF_ARCH_PASS2
#include "host.c"
#undef _GEN_ARCH
#define _GEN_ARCH HCPUMF_ARCH_PASS3
#include "host.c"

/* The table of services given to the Rust core at load. */
static hcpumf_host hcpumf_host_services;

volatile int hcpumf_glue_stopping;

static void hcpumf_h_log(const char *line)
{
    logmsg("%s\n", line);
}

static uint8_t *hcpumf_h_mainstor(uint64_t *size)
{
    *size = sysblk.mainsize;
    return sysblk.mainstor;
}

static void hcpumf_h_mainlock(int obtain)
{
    if (obtain)
        obtain_lock(&sysblk.mainlock);
    else
        release_lock(&sysblk.mainlock);
}

static void hcpumf_h_mark_changed(uint64_t abs)
{
    /* Atomic: the sampler thread sets them while the CPUs' threads change keys. */
    if (abs < sysblk.mainsize)
        HCPUMF_MARK_FRAME(abs, STORKEY_REF | STORKEY_CHANGE);
}

static uint16_t hcpumf_h_machine_type(void)
{
    uint16_t type = (uint16_t)((sysblk.cpuid >> 16) & 0xFFFF);
#if defined(HCPUMF_HYPERION)
    /* Hyperion builds a default CPU ID (model 0586) before it reads the configuration,
     * whose CPUMODEL statement may come after ldmod: until it has read the configuration,
     * that default is no machine type yet, and the model waits for it as on 3.13. */
    if (!sysblk.config_processed && type == 0x0586)
        return 0;
#endif
    return type;
}

static int hcpumf_h_cpu_online(uint16_t cpu)
{
#if defined(HCPUMF_HYPERION)
    /* Hyperion configures the CPUs at the NUMCPU statement; 3.13 once it has read the
     * configuration, which is what the plugin expects (a CPU online: the model is known). */
    if (!sysblk.config_processed)
        return 0;
#endif
    return cpu < HCPUMF_MAX_ENGINES && IS_CPU_ONLINE(cpu);
}

static uint16_t hcpumf_h_max_cpu(void)
{
    return HCPUMF_MAX_ENGINES - 1;
}

static uint64_t hcpumf_h_thread_cputime_ns(uint16_t cpu)
{
    clockid_t cid;
    struct timespec ts;
    uint64_t ns = 0;
    if (cpu >= HCPUMF_MAX_ENGINES)
        return 0;
    obtain_lock(&sysblk.cpulock[cpu]);
    if (IS_CPU_ONLINE(cpu) && pthread_getcpuclockid(sysblk.cputid[cpu], &cid) == 0
        && clock_gettime(cid, &ts) == 0)
        ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
    release_lock(&sysblk.cpulock[cpu]);
    return ns;
}

static uint64_t hcpumf_h_instcount(uint16_t cpu)
{
    uint64_t n = 0;
    if (cpu >= HCPUMF_MAX_ENGINES)
        return 0;
    obtain_lock(&sysblk.cpulock[cpu]);
    if (IS_CPU_ONLINE(cpu) && sysblk.regs[cpu])
        n = INSTCOUNT(sysblk.regs[cpu]);
    release_lock(&sysblk.cpulock[cpu]);
    return n;
}

static uint64_t hcpumf_h_tod(void)
{
    int cpu;
    for (cpu = 0; cpu < HCPUMF_MAX_ENGINES; cpu++)
        if (IS_CPU_ONLINE(cpu) && sysblk.regs[cpu])
            return HCPUMF_TOD(sysblk.regs[cpu]) << 8;
    return (uint64_t)hw_clock() << 8;
}

static void hcpumf_h_tod_update(void)
{
    update_tod_clock();
}

static int hcpumf_h_timerint(int us)
{
    int before = sysblk.timerint;
    if (us > 0)
        sysblk.timerint = us;
    return before;
}

static uint8_t hcpumf_h_cpu_state(uint16_t cpu, uint8_t *state)
{
    REGS *regs;
    uint8_t arch = 255;
    *state = 0;
    if (cpu >= HCPUMF_MAX_ENGINES)
        return arch;
    obtain_lock(&sysblk.cpulock[cpu]);
    regs = sysblk.regs[cpu];
    if (IS_CPU_ONLINE(cpu) && regs) {
        arch = regs->arch_mode;
        *state = (PROBSTATE(&regs->psw) ? 1 : 0) | (WAITSTATE(&regs->psw) ? 2 : 0)
               | (regs->cpustate != CPUSTATE_STARTED ? 4 : 0);
    }
    release_lock(&sysblk.cpulock[cpu]);
    return arch;
}

void hcpumf_services_load(void)
{
    hcpumf_host *h = &hcpumf_host_services;
    hcpumf_glue_stopping = 0;
    h->log = hcpumf_h_log;
    h->mainstor = hcpumf_h_mainstor;
    h->mainlock = hcpumf_h_mainlock;
    h->mark_changed = hcpumf_h_mark_changed;
    h->arm = hcpumf_h_arm;
    h->kick_waiting = hcpumf_h_kick_waiting;
    h->machine_type = hcpumf_h_machine_type;
    h->cpu_online = hcpumf_h_cpu_online;
    h->max_cpu = hcpumf_h_max_cpu;
    h->thread_cputime_ns = hcpumf_h_thread_cputime_ns;
    h->instcount = hcpumf_h_instcount;
    h->tod = hcpumf_h_tod;
    h->cpu_state = hcpumf_h_cpu_state;
    h->peek = hcpumf_h_peek;
    h->peek_wait = hcpumf_h_peek_wait;
    h->tod_update = hcpumf_h_tod_update;
    h->timerint = hcpumf_h_timerint;
    hcpumf_load(h);
}

#if !defined(HCPUMF_HYPERION)

/* ---------------------------------------------------------------- Hercules hooks ------ */

/* Every console command passes here before Hercules routes it (the Rust core notes which
 * reset a command performs); those starting with "hcpumf" are ours. Returns nonzero when
 * the command was ours. */
static int hcpumf_system_command(int argc, char *argv[], char *cmdline)
{
    hcpumf_command_seen(argc >= 1 ? argv[0] : NULL);
    if (argc < 1 || strcasecmp(argv[0], "hcpumf") != 0)
        return 0;
    hcpumf_command(argc, (const char *const *)argv, cmdline);
    return 1;
}

/* Hercules calls this with the IPL CPU (or the target CPU of sysreset/sysclear) when
 * system_reset begins, and again when a load has finished (CPU started) or failed. */
static void *hcpumf_debug_cpu_state(REGS *regs)
{
    if (regs)
        hcpumf_system_reset(regs->cpuad, regs->cpustate == CPUSTATE_STARTED ? 1 : 0);
    return NULL;
}

HDL_DEPENDENCY_SECTION;
{
    HDL_DEPENDENCY(HERCULES);
    HDL_DEPENDENCY(REGS);
    HDL_DEPENDENCY(DEVBLK);
    HDL_DEPENDENCY(SYSBLK);
}
END_DEPENDENCY_SECTION;

HDL_REGISTER_SECTION;
{
    HDL_REGISTER(system_command, hcpumf_system_command);
    HDL_REGISTER(debug_cpu_state, hcpumf_debug_cpu_state);
    hcpumf_services_load();
}
END_REGISTER_SECTION;

HDL_RESOLVER_SECTION;
{
}
END_RESOLVER_SECTION;

HDL_INSTRUCTION_SECTION;
{
#define HCPUMF_DEFINE(_archs, _op, _fn, _slot) HCPUMF_DEF_INST(_archs, _op, _fn);
    HCPUMF_INSTRUCTIONS(HCPUMF_DEFINE)
#undef HCPUMF_DEFINE
    HDL_DEFINST(HDL_INSTARCH_900, 0xB2B0, hcpumf_stfle);
    hcpumf_patch_all(1);
}
END_INSTRUCTION_SECTION;

HDL_FINAL_SECTION;
{
    int cpu;
    hcpumf_unload();
    for (cpu = 0; cpu < HCPUMF_MAX_ENGINES; cpu++)
        hcpumf_disarm(cpu);
    hcpumf_patch_all(0);
    /* Let a CPU that is inside the tick or one of the instructions leave the module. */
    usleep(20000);
}
END_FINAL_SECTION;

static const hcpumf_hdl hcpumf_hdl_sections = {
    (int (*)(void *))hcpumf_glue_depc,
    (void (*)(void *))hcpumf_glue_reso,
    (void (*)(void *))hcpumf_glue_init,
    (void (*)(void *))hcpumf_glue_dins,
    (int (*)(void))hcpumf_glue_fini,
};

static void __attribute__((constructor)) hcpumf_glue_register(void)
{
    hcpumf_register_hdl(&hcpumf_hdl_sections);
}

#endif /* !HCPUMF_HYPERION */

#endif /* !defined(_GEN_ARCH) */
