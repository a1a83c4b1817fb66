/* hcpumf glue, SDL Hyperion only: the HDL sections, the hooks and the facility bits.
 *
 *  - Sections. Hyperion calls a module's sections by their *_ep names (the Rust side
 *    exports them, src/plugin.rs) and runs those of a module with instructions with every
 *    CPU stopped and the interrupt lock held (so nothing here takes it).
 *  - Wrapped instructions. SIGP, SVC, LPSW, LPSWE, SERVC and the CPACF instructions are
 *    entries of Hyperion's one table per architecture: the plugin defines them with
 *    HDL_DEF_INST and calls on the function the table held before (for CPACF normally the
 *    dyncrypt module's, which Hyperion loads before any ldmod), read at load.
 *  - Console commands reach the plugin through Hyperion's system_command hook first:
 *    `hcpumf ...` is the plugin's, everything else goes on (HERRINVCMD) to Hyperion.
 *  - Facility bits. STFLE reads the CPU's copy of Hyperion's facility list: the plugin sets
 *    bits 40, 67, 68 and 142 of the z/Architecture list (and of every online CPU's copy) at
 *    load and at every system reset, and takes them away at unload.
 *
 * Hyperion's own `facility enable 067` (or 068, 142) makes STFLE show the bit while the
 * instructions still program-check (Hyperion has none for them). Decision: while the
 * plugin is loaded it owns bits 40, 67, 68 and 142, and `facility enable|disable` of any of
 * them is refused (HHCMF081E): letting Hyperion disable one would put its operation-
 * exception entries over the plugin's instructions and leave HDL's chain pointing into the
 * plugin after rmmod. At rmmod the plugin turns 67, 68 and 142 off again even when a
 * FACILITY statement had turned them on before the load, so a guest never sees them
 * without the instructions; bit 40 (Hyperion has its own LPP) goes back to what it was.
 * Without the plugin, a FACILITY ENABLE of them is Hyperion's own business (its HHC00898W
 * says it is unsupported). */

#include "hstdinc.h"

#ifndef _HCPUMF_HYPERION_C_
#define _HCPUMF_HYPERION_C_
#endif

#include "hercules.h"
#include "opcode.h"
#include "inline.h"

#include "internal.h"

#if !defined(_GEN_ARCH)

/* The per-architecture passes declare the s370_, s390_ and z900_ instruction functions. */
#define _GEN_ARCH HCPUMF_ARCH_PASS2
#include "hyperion.c"
#undef _GEN_ARCH
#define _GEN_ARCH HCPUMF_ARCH_PASS3
#include "hyperion.c"

#include <dlfcn.h>

hcpumf_func hcpumf_prev[NUM_GEN_ARCHS][HCPUMF_W_COUNT];

static SYSTEMCMD *hcpumf_next_command;
static HDLDBGCPU *hcpumf_next_debug_cpu_state;

/* ---------------------------------------------------------------- facility bits ------ */

/* The bit Hyperion implements itself (LPP, system-wide): restored at unload, not cleared. */
#define HCPUMF_FAC_HYPERION_OWN 40
static BYTE hcpumf_fac_mask[STFL_HERC_BY_SIZE];   /* the plugin's bits */
static BYTE hcpumf_fac_before[STFL_HERC_BY_SIZE]; /* those of them on before the load */
static int hcpumf_fac_recorded;

static int hcpumf_fac_bit(const BYTE *list, int bit)
{
    return bit / 8 < (int)STFL_HERC_BY_SIZE && (list[bit / 8] & (0x80 >> (bit % 8)));
}

/* Every online CPU's copy of the list (what init_cpu_facilities does; a CPU also copies it
 * at every reset and when run_cpu starts). */
static void hcpumf_fac_push(void)
{
    int cpu;
    for (cpu = 0; cpu < HCPUMF_MAX_ENGINES; cpu++)
        if (IS_CPU_ONLINE(cpu) && sysblk.regs[cpu])
            memcpy(sysblk.regs[cpu]->facility_list,
                   sysblk.facility_list[sysblk.regs[cpu]->arch_mode], STFL_HERC_BY_SIZE);
}

/* on: the plugin's bits into Hyperion's z/Architecture list; called at load (CPUs stopped)
 * and at every system reset, because Hyperion builds its lists afresh from its defaults
 * when it reads the configuration (a plugin loaded with -l comes before that). off: at
 * unload. The bits are the ones the Rust core reports (hcpumf_facility_list), which it
 * reports only while the instructions are installed. */
void hcpumf_facilities(int on)
{
    BYTE *list = sysblk.facility_list[ARCH_900_IDX];
    int i, missing = 0;
    if (on) {
        BYTE bits[64];
        int n;
        memset(bits, 0, sizeof(bits));
        n = hcpumf_facility_list(bits, sizeof(bits), 0, 2);
        if (n <= 0)
            return;
        for (i = 0; i < (int)STFL_HERC_BY_SIZE; i++) {
            hcpumf_fac_mask[i] = i < n ? bits[i] : 0;
            missing |= hcpumf_fac_mask[i] & ~list[i];
        }
        if (!hcpumf_fac_recorded || missing) {
            for (i = 0; i < (int)STFL_HERC_BY_SIZE; i++)
                hcpumf_fac_before[i] = list[i] & hcpumf_fac_mask[i];
            hcpumf_fac_recorded = 1;
            for (i = 0; i < (int)STFL_HERC_BY_SIZE * 8; i++)
                if (i != HCPUMF_FAC_HYPERION_OWN && hcpumf_fac_bit(hcpumf_fac_mask, i)
                    && hcpumf_fac_bit(hcpumf_fac_before, i))
                    logmsg("HHCMF083I hcpumf: facility %03d had been enabled without "
                           "instructions (FACILITY ENABLE); hcpumf provides them now\n", i);
        }
        for (i = 0; i < (int)STFL_HERC_BY_SIZE; i++)
            list[i] |= hcpumf_fac_mask[i];
    } else {
        for (i = 0; i < (int)STFL_HERC_BY_SIZE * 8; i++) {
            BYTE b = 0x80 >> (i % 8);
            if (!hcpumf_fac_bit(hcpumf_fac_mask, i))
                continue;
            if (i == HCPUMF_FAC_HYPERION_OWN && hcpumf_fac_bit(hcpumf_fac_before, i))
                list[i / 8] |= b;
            else
                list[i / 8] &= ~b;
        }
        hcpumf_fac_recorded = 0;
    }
    hcpumf_fac_push();
}

/* `facility enable|disable BIT|NAME [arch]` naming one of the plugin's bits (Hyperion's
 * names begin with the bit number, e.g. 067_CPU_MEAS_COUNTER; BITnnn works too). */
static int hcpumf_facility_refused(int argc, char *argv[])
{
    size_t n;
    const char *p;
    int bit;
    if (argc < 3 || !argv[0] || !argv[1] || !argv[2])
        return 0;
    n = strlen(argv[0]);
    if (n < 3 || strncasecmp(argv[0], "facility", n < 9 ? n : 9) != 0)
        return 0;
    n = strlen(argv[1]);
    if (n < 3 || (strncasecmp(argv[1], "enable", n < 7 ? n : 7) != 0
                  && strncasecmp(argv[1], "disable", n < 8 ? n : 8) != 0))
        return 0;
    p = argv[2];
    if (strncasecmp(p, "bit", 3) == 0)
        p += 3;
    if (!isdigit((unsigned char)*p))
        return 0;
    bit = atoi(p);
    if (!hcpumf_fac_bit(hcpumf_fac_mask, bit))
        return 0;
    logmsg("HHCMF081E hcpumf: facility %03d belongs to hcpumf while it is loaded (its bit "
           "comes and goes with the plugin's instructions); 'facility %s' refused. rmmod "
           "hcpumf first to change it\n", bit, argv[1]);
    return 1;
}

/* ---------------------------------------------------------------- hooks -------------- */

/* Every console command passes here before Hyperion routes it (the Rust core notes which
 * reset a command performs). Returns HERRINVCMD for what is not the plugin's. */
static int hcpumf_system_command(int argc, char *argv[], char *cmdline)
{
    hcpumf_command_seen(argc >= 1 ? argv[0] : NULL);
    if (argc >= 1 && argv[0] && strcasecmp(argv[0], "hcpumf") == 0) {
        hcpumf_command(argc, (const char *const *)argv, cmdline);
        return 0;
    }
    if (hcpumf_facility_refused(argc, argv))
        return -1;
    /* Hyperion refuses it with HHC02253E; say what to do. */
    if (argc >= 2 && argv[0] && argv[1] && strcasecmp(argv[0], "rmmod") == 0
        && strstr(argv[1], "hcpumf") && are_any_cpus_started())
        logmsg("HHCMF082E hcpumf can be unloaded (and loaded) only while every CPU is "
               "stopped: stopall, rmmod hcpumf, ldmod hcpumf, then startall; each CPU then "
               "starts as after an initial CPU reset\n");
    return hcpumf_next_command ? hcpumf_next_command(argc, argv, cmdline) : HERRINVCMD;
}

/* Hyperion calls this with the IPL CPU (or the target CPU of sysreset/sysclear) when
 * system_reset begins, and again when a load has finished (CPU started) or failed. */
static void *hcpumf_debug_cpu_state(REGS *regs)
{
    if (regs) {
        hcpumf_facilities(1);
        hcpumf_system_reset(regs->cpuad, regs->cpustate == CPUSTATE_STARTED ? 1 : 0);
    }
    return hcpumf_next_debug_cpu_state ? hcpumf_next_debug_cpu_state(regs) : NULL;
}

static void *hcpumf_replace_opcode_hook(int arch, INSTR_FUNC inst, int opcode1, int opcode2)
{
    return hcpumf_replace_opcode(arch, inst, opcode1, opcode2);
}

/* ---------------------------------------------------------------- wrapped ------------ */

static const struct {
    int slot, opcode;
} hcpumf_wrapped_ops[] = {
#define HCPUMF_WRAPPED(_archs, _op, _fn, _slot) {_slot, _op},
    HCPUMF_INSTRUCTIONS(HCPUMF_WRAPPED)
#undef HCPUMF_WRAPPED
};

/* The functions the wrapped instructions pass on to, as Hyperion's tables held them before
 * the plugin's (every CPU stopped, in the instruction section). */
static void hcpumf_read_prev(void)
{
    size_t k;
    int a;
    for (k = 0; k < sizeof(hcpumf_wrapped_ops) / sizeof(hcpumf_wrapped_ops[0]); k++) {
        int op = hcpumf_wrapped_ops[k].opcode, slot = hcpumf_wrapped_ops[k].slot;
        if (slot < 0)
            continue;
        for (a = 0; a < NUM_GEN_ARCHS; a++)
            hcpumf_prev[a][slot] = hcpumf_table_entry(a, op > 0xFF ? op : op << 8);
    }
}

/* HDL runs every module's resolver again after an rmmod. When the module that owned one of
 * the previous functions (dyncrypt: `rmmod dyncrypt`) is gone, HDL chains the plugin's
 * instruction to that module's own predecessor; the plugin falls back to Hyperion's own
 * function (libherc), which is that predecessor unless a third module sat in between. */
static void hcpumf_check_prev(void)
{
    /* In the order of enum hcpumf_wrapped; NULL where the plugin does not wrap. */
#define HCPUMF_BUILTIN(_p, _lpswe, _servc)                                                 \
    {_p##signal_processor, _p##supervisor_call, _p##load_program_status_word, _lpswe,      \
     _servc, _p##compute_intermediate_message_digest, _p##compute_last_message_digest,     \
     _p##cipher_message, _p##cipher_message_with_chaining,                                 \
     _p##compute_message_authentication_code}
    static hcpumf_func const builtin[NUM_GEN_ARCHS][HCPUMF_W_COUNT] = {
        HCPUMF_BUILTIN(s370_, NULL, NULL),
        HCPUMF_BUILTIN(s390_, NULL, s390_service_call),
        HCPUMF_BUILTIN(z900_, z900_load_program_status_word_extended, z900_service_call),
    };
#undef HCPUMF_BUILTIN
    Dl_info info;
    int a, slot;
    for (a = 0; a < NUM_GEN_ARCHS; a++)
        for (slot = 0; slot < HCPUMF_W_COUNT; slot++)
            if (hcpumf_prev[a][slot] && !dladdr((void *)hcpumf_prev[a][slot], &info))
                hcpumf_prev[a][slot] = builtin[a][slot];
}

/* ---------------------------------------------------------------- HDL sections ------- */

HDL_DEPENDENCY_SECTION;
{
    HDL_DEPENDENCY(HERCULES);
    HDL_DEPENDENCY(REGS);
    HDL_DEPENDENCY(DEVBLK);
    HDL_DEPENDENCY(SYSBLK);
}
    /* After Hyperion's HHC01509I/HHC01510I: which Hyperion this plugin is for. */
    if (depchk_rc)
        logmsg("HHCMF080E hcpumf was built against SDL Hyperion %s (HERCULES \"%s\", REGS %d, "
               "SYSBLK %d, DEVBLK %d bytes), not the Hercules loading it: rebuild it with "
               "HERCULES_SRC naming this Hercules' own configured source tree "
               "(README: Hyperion)\n",
               DYNAMIC_VERSION, HDL_VERS_HERCULES, (int)sizeof(REGS), (int)sizeof(SYSBLK),
               (int)sizeof(DEVBLK));
END_DEPENDENCY_SECTION

HDL_REGISTER_SECTION;
{
    HDL_REGISTER(system_command, hcpumf_system_command);
    HDL_REGISTER(debug_cpu_state, hcpumf_debug_cpu_state);
    HDL_REGISTER(replace_opcode, hcpumf_replace_opcode_hook);
    hcpumf_services_load();
}
END_REGISTER_SECTION

HDL_RESOLVER_SECTION;
{
    /* Called again for every module at each ldmod and rmmod: the next handlers in the
     * chains are what the hooks forward to. */
    hcpumf_next_command = (SYSTEMCMD *)hdl_next((void *)&hcpumf_system_command);
    hcpumf_next_debug_cpu_state = (HDLDBGCPU *)hdl_next((void *)&hcpumf_debug_cpu_state);
    hcpumf_tables_resolve(hdl_next((void *)&hcpumf_replace_opcode_hook));
    hcpumf_check_prev();
}
END_RESOLVER_SECTION

HDL_INSTRUCTION_SECTION;
{
    /* Every CPU stopped, the interrupt lock held. The CPUs' own tables first, so that the
     * plugin's instructions reach them through the hook. */
    if (hcpumf_tables_load() != 0)
        logmsg("HHCMF084E hcpumf: Hyperion's opcode tables not found or no memory for the "
               "CPUs' copies; sampling ticks will not work\n");
    hcpumf_read_prev();
#define HCPUMF_DEFINE(_archs, _op, _fn, _slot) HCPUMF_DEF_INST(_archs, _op, _fn);
    HCPUMF_INSTRUCTIONS(HCPUMF_DEFINE)
#undef HCPUMF_DEFINE
    hcpumf_facilities(1);
}
END_INSTRUCTION_SECTION

HDL_FINAL_SECTION;
{
    int cpu;
    /* rmmod: every CPU stopped, the interrupt lock held by HDL; shutdown: neither. */
    hcpumf_glue_stopping = 1;
    hcpumf_unload();
    for (cpu = 0; cpu < HCPUMF_MAX_ENGINES; cpu++)
        hcpumf_disarm(cpu);
    hcpumf_facilities(0);
    hcpumf_tables_unload();
    /* At shutdown a CPU may still be inside the tick or an instruction of the plugin. */
    if (are_any_cpus_started_intlock_held())
        usleep(20000);
}
END_FINAL_SECTION

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

#endif /* !defined(_GEN_ARCH) */
