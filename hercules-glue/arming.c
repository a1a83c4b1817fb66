/* hcpumf glue: arming and ticks. The sampler thread arms a CPU by making entries of that
 * CPU's own first-level opcode table call the tick (Hercules 3.13 gives every CPU its own
 * copy of the table; shared/reference/hercules-integration.md); the tick runs on the CPU's
 * thread at an instruction boundary, puts the entries back and calls the Rust core. Also
 * here: presenting a measurement alert, reading a running CPU from the sampler thread
 * (peek.h), and keeping the first-level instructions the plugin wraps in every CPU's table.
 *
 * SDL Hyperion has one opcode table per architecture for all CPUs: arming_hyperion.c gives
 * each CPU its own copy and arms that; what the tick does once there, the alerts and the
 * reading of a running CPU are shared and stay here. */

#include "hstdinc.h"

#ifndef _HCPUMF_ARMING_C_
#define _HCPUMF_ARMING_C_
#endif

#include "hercules.h"
#include "opcode.h"
#include "inline.h"

#include "internal.h"

#if !defined(HCPUMF_ARMING_ONCE) && !defined(HCPUMF_HYPERION)
#define HCPUMF_ARMING_ONCE
/* Opcode-table entries a predicted arming traps at most. */
#define HCPUMF_FEW 2
/* 0 idle, 1 arming (the sampler writes the table), 2 armed, 3 taken (a tick is putting back
 * the entries of the arming it took; the sampler arms nothing meanwhile, see hcpumf_tick);
 * one cache line per CPU, so that arming one CPU does not take the line from under the
 * others' ticks. `nfew` entries `few` were armed (a prediction of the opcodes the CPU
 * executes next), every entry when nfew is 0, or HCPUMF_WATCH (the CPU armed itself for
 * the instructions that can enable a pending alert). */
static struct {
    volatile int s;
    volatile int nfew;
    unsigned char few[HCPUMF_FEW];
    char pad[64 - 2 * sizeof(int) - HCPUMF_FEW];
} hcpumf_armstate_[MAX_CPU_ENGINES] __attribute__((aligned(64)));
#define hcpumf_armstate(cpu) (hcpumf_armstate_[cpu].s)
/* A CPU's first-level opcode-table entries as they were before the plugin trapped them. */
static FUNC hcpumf_saved[MAX_CPU_ENGINES][256];
/* The table each CPU's saved entries belong to. */
static FUNC *hcpumf_armed_table[MAX_CPU_ENGINES];
#endif

/* Present the measurement alert (external interruption code 1407 hex, parameter at real
 * 128-131). Called with the interrupt lock held. Returns the program-interruption code of an
 * invalid external new PSW, or 0. */
static int ARCH_DEP(hcpumf_present)(REGS *regs, U32 param)
{
    PSA *psa = (void *)(regs->mainstor + regs->PX);
    HCPUMF_MARK_PSA(regs);
    regs->psw.intcode = 0x1407;
    STORE_HW(psa->extcpad, 0);
#if defined(FEATURE_BCMODE)
    if (ECMODE(&regs->psw))
#endif
        STORE_HW(psa->extint, 0x1407);
    STORE_FW(regs->mainstor + regs->PX + 128, param);
    ARCH_DEP(store_psw)(regs, psa->extold);
    return ARCH_DEP(load_psw)(regs, psa->extnew);
}

/* Is a timer interruption about to be taken: a CPU-timer or clock-comparator interruption
 * the CPU is enabled for, pending, or due but not yet made pending? Hercules' timer thread
 * makes a due one pending when it next runs, and on a core it shares with the sampler that
 * is right after the sampler's wake-up: an accounting point made now would fall just
 * before the interruption, every time (see `Meter::account`). */
static int ARCH_DEP(hcpumf_timer_due)(REGS *regs)
{
    U64 now;
    if (regs->ints_state & regs->ints_mask & (BIT(IC_PTIMER) | BIT(IC_CLKC)))
        return 1;
    if (!(regs->ints_mask & (BIT(IC_PTIMER) | BIT(IC_CLKC))))
        return 0;
    now = hw_clock();
    return ((regs->ints_mask & BIT(IC_PTIMER)) && (S64)(regs->cpu_timer - now) < 0)
        || ((regs->ints_mask & BIT(IC_CLKC)) && now + regs->tod_epoch > regs->clkc);
}

/* The tick once the table is restored, on the CPU's own thread at an instruction boundary
 * (the instruction `inst` is next): let the Rust core account, sample and decide on an
 * alert, and present the alert (leaving through longjmp) before the instruction. */
void ARCH_DEP(hcpumf_tick_common)(BYTE inst[], REGS *regs)
{
    hcpumf_view v;
    U32 param = 0;

    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    HCPUMF_SET_PSW_IA(regs);
    v.ia = regs->psw.IA;
    /* Left for the core to read when it needs it: the TOD clock takes Hercules' TOD lock. */
    v.tod = 0;
    /* Only accounting points need it (hw_clock takes Hercules' TOD lock). */
    v.timer_due = hcpumf_watching(regs->cpuad) && ARCH_DEP(hcpumf_timer_due)(regs);
    /* The target of an EXECUTE is never interrupted half-way: the alert stays pending. */
    if (regs->execflag) {
        hcpumf_tick(&v, &param);
        return;
    }
    switch (hcpumf_tick(&v, &param)) {
    case 1: {
        int rc;
        OBTAIN_INTLOCK(regs);
        rc = ARCH_DEP(hcpumf_present)(regs, param);
        RELEASE_INTLOCK(regs);
        if (rc)
            ARCH_DEP(program_interrupt)(regs, rc);
        longjmp(regs->progjmp, SIE_NO_INTERCEPT);
    }
    case 2:
        /* Pending, but the CPU is not enabled for it: be back right after the instruction
         * that enables it, which is when the alert is presented (`inst` itself may be it). */
        ARCH_DEP(hcpumf_arm_watch)(regs, inst);
        break;
    }
}

#if !defined(HCPUMF_HYPERION)
static void ARCH_DEP(hcpumf_arm)(REGS *regs, hcpumf_arm_mode mode);

/* Runs on the CPU's own thread in place of the next instruction after the sampler armed the
 * CPU's opcode table: restore the table, run the tick, then execute the instruction (or
 * take the interruption before it). */
static void ARCH_DEP(hcpumf_tick)(BYTE inst[], REGS *regs)
{
    int cpu = regs->cpuad;
    FUNC orig = hcpumf_saved[cpu][inst[0]];
    int k, nfew;
    BYTE few[HCPUMF_FEW];

    /* Watching for the instruction that enables a pending alert (hcpumf_arm_watch): others
     * run on with their entry left trapping; the enabling one arms every entry, so that the
     * tick runs at the instruction boundary right after it. While the sampler is writing
     * the table (1) the CPU waits to see what it leaves: run on at once, an enabling
     * instruction would find the watch gone and the sampler's entries not yet in place,
     * and the alert would come some instructions late. */
    for (;;) {
        int s = hcpumf_armstate(cpu);
        if (s == 1) {
            __builtin_ia32_pause();
            continue;
        }
        if (s != 2 || hcpumf_armstate_[cpu].nfew != HCPUMF_WATCH)
            break;
        if (!hcpumf_may_enable(inst)) {
            orig(inst, regs);
            return;
        }
        if (__sync_bool_compare_and_swap(&hcpumf_armstate(cpu), 2, 3)) {
            ARCH_DEP(hcpumf_arm)(regs, HCPUMF_ARM_EVERY);
            __atomic_store_n(&hcpumf_armstate(cpu), 2, __ATOMIC_RELEASE);
            orig(inst, regs);
            return;
        }
    }
    /* Restore only this opcode's entry: the others are put back as the CPU meets them, so
     * a tick touches the table lines the guest uses rather than all 2 KB of them. */
    regs->ARCH_DEP(opcode_table)[inst[0]] = orig;
    /* The sampler is writing the table right now (under the CPU lock, well under a
     * microsecond): wait for it, or this very entry could be the only one the guest uses. */
    while (hcpumf_armstate(cpu) == 1)
        __builtin_ia32_pause();
    /* Take the arming (2 -> 3) before putting its predicted entries back, and let the
     * sampler arm again (-> 0) only after. Released first, the sampler could make a new
     * arming in between (it escalates a CPU it still sees armed until the Rust tick says
     * otherwise) whose entries of these very opcodes, the ones the CPU is executing, this
     * loop would then put back: that arming would never trap and, seeing it in place, this
     * glue would refuse the sampler's next armings (milliseconds without a sample). */
    if (!__sync_bool_compare_and_swap(&hcpumf_armstate(cpu), 2, 3)) {
        /* A left-over entry of an earlier arming. */
        orig(inst, regs);
        return;
    }
    /* A predicted arming trapped only a few entries: put the other back now rather than let
     * it trap once more later. They are this arming's: none newer exists while it is taken. */
    nfew = hcpumf_armstate_[cpu].nfew;
    few[0] = hcpumf_armstate_[cpu].few[0];
    few[1] = hcpumf_armstate_[cpu].few[1];
    for (k = 0; k < nfew; k++)
        if (regs->ARCH_DEP(opcode_table)[few[k]] == (FUNC)ARCH_DEP(hcpumf_tick))
            regs->ARCH_DEP(opcode_table)[few[k]] = hcpumf_saved[cpu][few[k]];
    __atomic_store_n(&hcpumf_armstate(cpu), 0, __ATOMIC_RELEASE);
    ARCH_DEP(hcpumf_tick_common)(inst, regs);
    orig(inst, regs);
}
#endif

/* A CPU in an enabled wait gets a pending alert from another thread (the interrupt lock is
 * held). Only a CPU that is blocked in Hercules' wait (its bit in sysblk.waiting_mask, set
 * under the interrupt lock just before it waits) may have its PSW swapped from here: a CPU
 * whose wait bit is on but which is still inside the LOAD PSW that set it (no lock held)
 * would go on storing the rest of its wait PSW over the external new PSW loaded here, and
 * resume the wait's address with the new PSW's masks (Linux 6.12 then finds interruptions
 * disabled after idle). Such a CPU is kicked again at the next look. */
static void ARCH_DEP(hcpumf_kick)(REGS *regs)
{
    hcpumf_view v;
    U32 param = 0;
    BYTE none[6] = {0};
    if (!WAITSTATE(&regs->psw) || regs->cpustate != CPUSTATE_STARTED
        || !(sysblk.waiting_mask & regs->cpubit))
        return;
    ARCH_DEP(hcpumf_view)(regs, none, &v);
    v.ia = regs->psw.IA;
    if (hcpumf_alert_for_waiting(&v, &param)) {
        /* An invalid external new PSW is left for the CPU to find: nothing is loaded. */
        if (ARCH_DEP(hcpumf_present)(regs, param) == 0)
            WAKEUP_CPU(regs);
    }
}

/* Reading a running CPU from the sampler thread (its PSW bits and instruction address for a
 * sample, its wait for a dedicated CPU): peek.h, in each architecture's pass. */
#include "peek.h"

#if !defined(HCPUMF_HYPERION)
/* Hercules copies the first-level opcode table into each CPU's REGS when the CPU comes
 * online and does not refresh it on ldmod/rmmod, so the first-level instructions the plugin
 * wraps (SIGP, SVC, LPSW) are put into (or taken out of) the tables of online CPUs here. */
void ARCH_DEP(hcpumf_patch)(REGS *regs, int install)
{
    int cpu = regs->cpuad;
    FUNC sigp = install ? (FUNC)ARCH_DEP(hcpumf_sigp) : (FUNC)ARCH_DEP(signal_processor);
    FUNC svc = install ? (FUNC)ARCH_DEP(hcpumf_svc) : (FUNC)ARCH_DEP(supervisor_call);
    FUNC lpsw = install ? (FUNC)ARCH_DEP(hcpumf_lpsw) : (FUNC)ARCH_DEP(load_program_status_word);
    regs->ARCH_DEP(opcode_table)[0xAE] = sigp;
    regs->ARCH_DEP(opcode_table)[0x0A] = svc;
    regs->ARCH_DEP(opcode_table)[0x82] = lpsw;
    hcpumf_saved[cpu][0xAE] = sigp;
    hcpumf_saved[cpu][0x0A] = svc;
    hcpumf_saved[cpu][0x82] = lpsw;
}

/* The first-level opcode table of a CPU in this architecture. */
static FUNC *ARCH_DEP(hcpumf_table)(REGS *regs)
{
    return regs->ARCH_DEP(opcode_table);
}

/* Make entry `op` of a CPU's table call the tick function (an entry still trapping from an
 * earlier arming keeps its saved original). */
static void ARCH_DEP(hcpumf_trap_entry)(REGS *regs, int op)
{
    FUNC *table = regs->ARCH_DEP(opcode_table);
    FUNC trap = (FUNC)ARCH_DEP(hcpumf_tick);
    if (table[op] != trap) {
        hcpumf_saved[regs->cpuad][op] = table[op];
        table[op] = trap;
    }
}

/* Arm CPU `regs` so that it calls the tick function at an instruction boundary soon.
 * Predicted (HCPUMF_ARM_PREDICTED): only the entries of the instruction the CPU is executing and of the
 * one after it, read from its instruction pointer: a loop executes the first again within an
 * iteration, straight-line code the second at once. Every entry has to be rewritten only
 * when that prediction fails (HCPUMF_ARM_EVERY, HCPUMF_ARM_AGAIN): each rewritten entry is a cache line taken from the
 * CPU's core and a trap more when the CPU next executes it. */
static void ARCH_DEP(hcpumf_arm)(REGS *regs, hcpumf_arm_mode mode)
{
    int cpu = regs->cpuad, i;
    FUNC *table = regs->ARCH_DEP(opcode_table);
    if (hcpumf_armed_table[cpu] != table) {
        /* First arming of this table (or new REGS after an architecture switch). */
        memcpy(hcpumf_saved[cpu], table, sizeof(hcpumf_saved[cpu]));
        hcpumf_armed_table[cpu] = table;
    }
    if (mode == HCPUMF_ARM_PREDICTED) {
        /* The CPU thread moves ip as it runs: read it once. It points into main storage
         * while the instruction-fetch accelerator is valid; anything else is no prediction. */
        BYTE *ip = *(BYTE * volatile *)&regs->ip;
        if (ip && ip >= sysblk.mainstor && ip + 12 <= sysblk.mainstor + sysblk.mainsize) {
            BYTE op0 = ip[0];
            int len = op0 < 0x40 ? 2 : op0 < 0xC0 ? 4 : 6;
            BYTE op1 = ip[len];
            hcpumf_armstate_[cpu].few[0] = op0;
            hcpumf_armstate_[cpu].few[1] = op1;
            hcpumf_armstate_[cpu].nfew = 2;
            ARCH_DEP(hcpumf_trap_entry)(regs, op0);
            ARCH_DEP(hcpumf_trap_entry)(regs, op1);
            return;
        }
    }
    hcpumf_armstate_[cpu].nfew = 0;
    for (i = 0; i < 256; i++)
        ARCH_DEP(hcpumf_trap_entry)(regs, i);
}

/* Arm the CPU, from its own tick before instruction `inst`, for the instructions that can
 * enable it for a pending measurement alert (HCPUMF_ENABLING_OPS), or every entry when
 * `inst` is one of them: the tick then runs right after it. Unless the sampler is arming
 * it: then the sampler's tick (its prediction traps the instruction after this one), or the
 * next look at a masked alert (ALERT_POLL_NS), comes instead. */
void ARCH_DEP(hcpumf_arm_watch)(REGS *regs, const BYTE inst[])
{
    static const BYTE ops[HCPUMF_N_ENABLING_OPS] = HCPUMF_ENABLING_OPS;
    int cpu = regs->cpuad, k;
    if (hcpumf_armed_table[cpu] != regs->ARCH_DEP(opcode_table)
        || !__sync_bool_compare_and_swap(&hcpumf_armstate(cpu), 0, 1))
        return;
    if (hcpumf_enabling(inst)) {
        ARCH_DEP(hcpumf_arm)(regs, HCPUMF_ARM_EVERY);
    } else {
        for (k = 0; k < HCPUMF_N_ENABLING_OPS; k++)
            ARCH_DEP(hcpumf_trap_entry)(regs, ops[k]);
        hcpumf_armstate_[cpu].nfew = HCPUMF_WATCH;
    }
    __atomic_store_n(&hcpumf_armstate(cpu), 2, __ATOMIC_RELEASE);
}

/* Put back every entry that still traps (module unload). */
static void ARCH_DEP(hcpumf_unarm)(REGS *regs)
{
    int cpu = regs->cpuad, i;
    FUNC *table = regs->ARCH_DEP(opcode_table);
    FUNC trap = (FUNC)ARCH_DEP(hcpumf_tick);
    if (hcpumf_armed_table[cpu] != table)
        return;
    for (i = 0; i < 256; i++)
        if (table[i] == trap)
            table[i] = hcpumf_saved[cpu][i];
}
#endif /* !HCPUMF_HYPERION */

#if !defined(_GEN_ARCH)

#define _GEN_ARCH HCPUMF_ARCH_PASS2
#include "arming.c"
#undef _GEN_ARCH
#define _GEN_ARCH HCPUMF_ARCH_PASS3
#include "arming.c"

#if !defined(HCPUMF_HYPERION)

static FUNC *hcpumf_current_table(REGS *regs)
{
    switch (regs->arch_mode) {
    case ARCH_370: return s370_hcpumf_table(regs);
    case ARCH_390: return s390_hcpumf_table(regs);
    case ARCH_900: return z900_hcpumf_table(regs);
    }
    return NULL;
}

int hcpumf_h_arm(uint16_t cpu, hcpumf_arm_mode mode)
{
    REGS *regs;
    int rc = 1;
    if (cpu >= MAX_CPU_ENGINES)
        return 1;
    obtain_lock(&sysblk.cpulock[cpu]);
    regs = sysblk.regs[cpu];
    /* A CPU that changed architecture (new REGS) never ran the tick of its old table. */
    if (IS_CPU_ONLINE(cpu) && regs && hcpumf_armstate(cpu) == 2
        && hcpumf_armed_table[cpu] != hcpumf_current_table(regs))
        hcpumf_armstate(cpu) = 0;
    /* Still armed from before (the CPU waits or is stopped, or has not met a predicted
     * entry yet): nothing to do, unless every entry is wanted now, or wanted again (AGAIN:
     * the CPU's thread ran on for milliseconds with every entry trapped, so something put
     * entries back without a tick; trapping is idempotent). */
    if (hcpumf_armstate(cpu) == 2 && mode != HCPUMF_ARM_AGAIN
        && hcpumf_armstate_[cpu].nfew != HCPUMF_WATCH
        && (mode == HCPUMF_ARM_PREDICTED || hcpumf_armstate_[cpu].nfew == 0)) {
        release_lock(&sysblk.cpulock[cpu]);
        return 0;
    }
    /* Not while a tick has the previous arming taken (3): it is putting back entries that
     * this arming would trap. The CPU is at an instruction boundary in its tick, which posts
     * the CPU's next deadline; rc 1 tells the sampler nothing was armed. */
    if (IS_CPU_ONLINE(cpu) && regs && !regs->sie_active
        && (__sync_bool_compare_and_swap(&hcpumf_armstate(cpu), 0, 1)
            || __sync_bool_compare_and_swap(&hcpumf_armstate(cpu), 2, 1))) {
        HCPUMF_PER_ARCH(regs, hcpumf_arm, regs, mode);
        __sync_synchronize();
        hcpumf_armstate(cpu) = 2;
        rc = 0;
    }
    release_lock(&sysblk.cpulock[cpu]);
    return rc;
}

/* Put back a CPU's table (module unload); the CPU may be running the tick concurrently, in
 * which case both write the same saved entries. */
void hcpumf_disarm(int cpu)
{
    REGS *regs;
    obtain_lock(&sysblk.cpulock[cpu]);
    regs = sysblk.regs[cpu];
    if (IS_CPU_ONLINE(cpu) && regs) {
        HCPUMF_PER_ARCH(regs, hcpumf_unarm, regs);
    }
    hcpumf_armstate(cpu) = 0;
    release_lock(&sysblk.cpulock[cpu]);
}

void hcpumf_patch_all(int install)
{
    int cpu;
    for (cpu = 0; cpu < MAX_CPU_ENGINES; cpu++) {
        REGS *regs;
        obtain_lock(&sysblk.cpulock[cpu]);
        regs = sysblk.regs[cpu];
        if (IS_CPU_ONLINE(cpu) && regs) {
            HCPUMF_PER_ARCH(regs, hcpumf_patch, regs, install);
        }
        release_lock(&sysblk.cpulock[cpu]);
    }
}

#endif /* !HCPUMF_HYPERION */

void hcpumf_h_kick_waiting(uint16_t cpu)
{
    REGS *regs;
    if (cpu >= HCPUMF_MAX_ENGINES)
        return;
#if defined(HCPUMF_HYPERION)
    /* Hyperion's rmmod holds the interrupt lock across the final section, which waits for
     * this (the sampler) thread to end: never block on it. */
    while (TRY_OBTAIN_INTLOCK(NULL) != 0) {
        if (hcpumf_glue_stopping)
            return;
        usleep(20);
    }
#else
    OBTAIN_INTLOCK(NULL);
#endif
    regs = sysblk.regs[cpu];
    if (IS_CPU_ONLINE(cpu) && regs) {
        HCPUMF_PER_ARCH(regs, hcpumf_kick, regs);
    }
    RELEASE_INTLOCK(NULL);
}

int hcpumf_h_peek(uint16_t cpu, int accounting, hcpumf_peek *out)
{
    REGS *regs;
    int rc = 0;
    if (cpu >= HCPUMF_MAX_ENGINES)
        return 0;
    memset(out, 0, sizeof(*out));
    obtain_lock(&sysblk.cpulock[cpu]);
    regs = sysblk.regs[cpu];
    if (IS_CPU_ONLINE(cpu) && regs) {
        switch (regs->arch_mode) {
        case HCPUMF_ARCH_370: rc = s370_hcpumf_peek_regs(regs, accounting, out); break;
        case HCPUMF_ARCH_390: rc = s390_hcpumf_peek_regs(regs, accounting, out); break;
        case HCPUMF_ARCH_900: rc = z900_hcpumf_peek_regs(regs, accounting, out); break;
        }
    }
    release_lock(&sysblk.cpulock[cpu]);
    return rc;
}

int hcpumf_h_peek_wait(uint16_t cpu, hcpumf_wait_peek *out)
{
    REGS *regs;
    int rc = 0;
    if (cpu >= HCPUMF_MAX_ENGINES)
        return 0;
    memset(out, 0, sizeof(*out));
    obtain_lock(&sysblk.cpulock[cpu]);
    regs = sysblk.regs[cpu];
    if (IS_CPU_ONLINE(cpu) && regs) {
        switch (regs->arch_mode) {
        case HCPUMF_ARCH_370: rc = s370_hcpumf_peek_wait_regs(regs, out); break;
        case HCPUMF_ARCH_390: rc = s390_hcpumf_peek_wait_regs(regs, out); break;
        case HCPUMF_ARCH_900: rc = z900_hcpumf_peek_wait_regs(regs, out); break;
        }
    }
    release_lock(&sysblk.cpulock[cpu]);
    return rc;
}

#endif /* !defined(_GEN_ARCH) */
