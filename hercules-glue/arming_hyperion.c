/* hcpumf glue, SDL Hyperion only: per-CPU opcode tables and arming.
 *
 * Hyperion dispatches every instruction through one 65,536-entry table per architecture,
 * shared by all CPUs (runtime_opcode_xxxx, reached through the REGS fields
 * ARCH_DEP(runtime_opcode_xxxx), which run_cpu copies into a local when it starts). Trapping
 * an entry of that table would make every CPU pay for one CPU's sample, so each CPU is given
 * its own copy of each architecture's table, and a CPU is armed by writing the tick into
 * entries of its copy only: a CPU nobody arms dispatches through a table nobody writes.
 *
 *  - Bootstrap. At load (every CPU stopped) the plugin copies each global table into
 *    `master`, gives every configured CPU its copies and fills the global tables with the
 *    bootstrap entry. A CPU still dispatching through a global table (the first instruction
 *    after the load, a CPU configured later) runs the bootstrap: it points its REGS at its
 *    copies and re-enters run_cpu through regs->archjmp (the architecture-switch path),
 *    which re-reads the table pointer into run_cpu's local, then fetches the same
 *    instruction again. The global tables keep the bootstrap entries while the plugin is
 *    loaded.
 *  - replace_opcode hook. Every later change of an opcode (another module's instructions,
 *    `facility enable/disable`, HDL putting back the plugin's own at rmmod) goes through
 *    Hyperion's replace_opcode, which the plugin hooks: the change lands in the global
 *    table, and the hook copies it into `master` and every CPU's copy and puts the bootstrap
 *    entries back.
 *  - Arming (hcpumf_h_arm): as on Hercules 3.13, predicted: the entries of the halfword the
 *    CPU is at and of the instruction after it; every entry (65,536) only when a prediction
 *    failed (kept rare by the sampler: `hcpumf status`, "armings escalated").
 *  - Unload. The copies cannot be freed: a stopped CPU keeps its table in run_cpu's local
 *    and is restarted through progjmp. The final section puts the global tables back and
 *    the hook (HDL still calls it to take the plugin's instructions out) keeps the copies
 *    equal to them; a later load adopts the copies through the REGS fields. An opcode
 *    change made by something else while the plugin is not loaded does not reach a CPU that
 *    still runs on its copy, until it re-enters run_cpu (an architecture switch) or the
 *    plugin is loaded again (which brings every copy up to date).
 *
 * Hyperion's own instruction tests (its tests/runtest) pass with the plugin loaded, every
 * test CPU running on its copies. */

#include "hstdinc.h"

#ifndef _HCPUMF_ARMING_HYPERION_C_
#define _HCPUMF_ARMING_HYPERION_C_
#endif

#include "hercules.h"
#include "opcode.h"
#include "inline.h"

#include "internal.h"

#ifndef HCPUMF_ARMING_HYP_ONCE
#define HCPUMF_ARMING_HYP_ONCE

#define HCPUMF_NTAB 65536
/* Opcode-table entries a predicted arming traps at most. */
#define HCPUMF_FEW 2

/* master[arch]: what the global table would hold without the bootstrap entries;
 * percpu[cpu][arch]: the CPU's own copy; global[arch]: Hyperion's table. */
static hcpumf_func *hcpumf_master[NUM_GEN_ARCHS];
static hcpumf_func *hcpumf_global[NUM_GEN_ARCHS];
static hcpumf_func *hcpumf_percpu[HCPUMF_MAX_ENGINES][NUM_GEN_ARCHS];
static hcpumf_func hcpumf_bootstrap_fn[NUM_GEN_ARCHS];
static hcpumf_func hcpumf_tick_fn[NUM_GEN_ARCHS];
static volatile int hcpumf_tables_unloading;
static REPOPCODE *hcpumf_next_replace_opcode;
static pthread_mutex_t hcpumf_tables_lock = PTHREAD_MUTEX_INITIALIZER;

/* 0 idle, 1 arming, 2 armed, 3 taken (a tick is putting back the entries of the arming it
 * took; the sampler arms nothing meanwhile); one cache line per CPU. `nfew` entries `few`
 * were armed in the copy of architecture `arch`, every entry when nfew is 0, or HCPUMF_WATCH
 * (the CPU armed itself for the instructions that can enable a pending alert). */
static struct {
    volatile int s;
    volatile int nfew;
    volatile int arch;
    U16 few[HCPUMF_FEW];
    char pad[64 - 3 * sizeof(int) - HCPUMF_FEW * sizeof(U16)];
} hcpumf_arm_[HCPUMF_MAX_ENGINES] __attribute__((aligned(64)));

static int hcpumf_alloc_tables(int cpu);

/* Make every entry of CPU `cpu`'s copy `tab` (architecture index `a`) call the tick. */
static void hcpumf_trap_every(int cpu, hcpumf_func *tab, int a)
{
    int i;
    hcpumf_arm_[cpu].nfew = 0;
    for (i = 0; i < HCPUMF_NTAB; i++)
        tab[i] = hcpumf_tick_fn[a];
}
static hcpumf_func *hcpumf_current_copy(int cpu, REGS *regs);

/* The REGS field of architecture index `a` (the tables a CPU dispatches through). */
static const INSTR_FUNC **hcpumf_regs_table(REGS *regs, int a)
{
    switch (a) {
    case ARCH_370_IDX: return &regs->s370_runtime_opcode_xxxx;
    case ARCH_390_IDX: return &regs->s390_runtime_opcode_xxxx;
    case ARCH_900_IDX: return &regs->z900_runtime_opcode_xxxx;
    }
    return NULL;
}
#endif /* HCPUMF_ARMING_HYP_ONCE */

/* The entry of every global table while the plugin is loaded (see the top): move the CPU
 * onto its own copies, or, where that cannot be done now, run the instruction. */
static void ARCH_DEP(hcpumf_bootstrap)(BYTE inst[], REGS *regs)
{
    int cpu = regs->cpuad, a;
    hcpumf_func orig = hcpumf_master[ARCH_IDX][fetch_hw(inst)];

    /* Guest (SIE) registers and the target of an EXECUTE are dispatched through the master
     * copy; so is a CPU inside a transaction (run_cpu's re-entry would reallocate its
     * transaction map). The next instruction tries again. */
    if (hcpumf_tables_unloading || SIE_MODE(regs) || regs->hostregs != regs
        || cpu >= HCPUMF_MAX_ENGINES || regs->execflag
#if defined(FEATURE_073_TRANSACT_EXEC_FACILITY)
        || regs->txf_tnd
#endif
    ) {
        orig(inst, regs);
        return;
    }
    /* A CPU configured after the load (or every CPU, when the plugin was loaded before the
     * configuration was read) gets its copies here, on its own thread. */
    if (!hcpumf_alloc_tables(cpu)) {
        orig(inst, regs);
        return;
    }
    for (a = 0; a < NUM_GEN_ARCHS; a++)
        *hcpumf_regs_table(regs, a) = hcpumf_percpu[cpu][a];
    /* run_cpu's re-entry allocates the transactional-execution map again (and Hyperion
     * crashes when one exists): free it first, as the architecture switch does. */
    TXF_FREEMAP(regs);
    /* Re-enter run_cpu after its architecture-switch setjmp with the interrupt lock held
     * (run_cpu releases it): it re-runs init_cpu_facilities, re-reads the table pointer and
     * fetches this instruction again, which has not been executed. */
    OBTAIN_INTLOCK(regs);
    longjmp(regs->archjmp, SIE_NO_INTERCEPT);
}

/* Runs on the CPU's own thread in place of the next instruction after the sampler armed the
 * CPU's copy: restore the copy, run the tick, then execute the instruction (or take the
 * interruption before it). */
static void ARCH_DEP(hcpumf_tick)(BYTE inst[], REGS *regs)
{
    int cpu = regs->cpuad, k, nfew;
    U16 op = fetch_hw(inst), few[HCPUMF_FEW];
    hcpumf_func *tab = cpu < HCPUMF_MAX_ENGINES ? hcpumf_percpu[cpu][ARCH_IDX] : NULL;
    hcpumf_func orig = hcpumf_master[ARCH_IDX][op];

    if (!tab) {
        orig(inst, regs);
        return;
    }
    /* Watching for the instruction that enables a pending alert (hcpumf_arm_watch): others
     * run on with their entry left trapping; the enabling one arms every entry, so that the
     * tick runs at the instruction boundary right after it. While the sampler is writing
     * the copy (1) the CPU waits to see what it leaves (see arming.c). */
    for (;;) {
        int s = hcpumf_arm_[cpu].s;
        if (s == 1) {
            __builtin_ia32_pause();
            continue;
        }
        if (s != 2 || hcpumf_arm_[cpu].nfew != HCPUMF_WATCH)
            break;
        if (!hcpumf_may_enable(inst)) {
            orig(inst, regs);
            return;
        }
        if (__sync_bool_compare_and_swap(&hcpumf_arm_[cpu].s, 2, 3)) {
            hcpumf_trap_every(cpu, tab, ARCH_IDX);
            __atomic_store_n(&hcpumf_arm_[cpu].s, 2, __ATOMIC_RELEASE);
            orig(inst, regs);
            return;
        }
    }
    /* Restore this entry first; the sampler may be writing the copy right now (under the
     * CPU lock, well under a microsecond): wait for it. */
    tab[op] = orig;
    while (hcpumf_arm_[cpu].s == 1)
        __builtin_ia32_pause();
    /* Take the arming (2 -> 3) before putting its entries back, and let the sampler arm
     * again (-> 0) only after: released first, a new arming made in between would have its
     * entries put back by this very restore, never trap, and block the next armings. */
    if (!__sync_bool_compare_and_swap(&hcpumf_arm_[cpu].s, 2, 3)) {
        /* A left-over entry of an earlier arming. */
        orig(inst, regs);
        return;
    }
    nfew = hcpumf_arm_[cpu].nfew;
    few[0] = hcpumf_arm_[cpu].few[0];
    few[1] = hcpumf_arm_[cpu].few[1];
    if (nfew == 0)
        memcpy(tab, hcpumf_master[ARCH_IDX], HCPUMF_NTAB * sizeof(hcpumf_func));
    else
        for (k = 0; k < nfew; k++)
            if (tab[few[k]] == hcpumf_tick_fn[ARCH_IDX])
                tab[few[k]] = hcpumf_master[ARCH_IDX][few[k]];
    __atomic_store_n(&hcpumf_arm_[cpu].s, 0, __ATOMIC_RELEASE);
    ARCH_DEP(hcpumf_tick_common)(inst, regs);
    orig(inst, regs);
}

/* Arm the CPU, from its own tick before instruction `inst`, for the instructions that can
 * enable it for a pending measurement alert (HCPUMF_ENABLING_OPS, every second byte), or
 * every entry when `inst` is one of them: the tick then runs right after it. Unless the
 * sampler is arming it: then the sampler's tick (its prediction traps the instruction after
 * this one), or the next look at a masked alert (ALERT_POLL_NS), comes instead. */
void ARCH_DEP(hcpumf_arm_watch)(REGS *regs, const BYTE inst[])
{
    static const BYTE ops[HCPUMF_N_ENABLING_OPS] = HCPUMF_ENABLING_OPS;
    int cpu = regs->cpuad, k, i;
    hcpumf_func *tab = cpu < HCPUMF_MAX_ENGINES ? hcpumf_current_copy(cpu, regs) : NULL;
    if (!tab || !__sync_bool_compare_and_swap(&hcpumf_arm_[cpu].s, 0, 1))
        return;
    hcpumf_arm_[cpu].arch = regs->arch_mode;
    if (hcpumf_enabling(inst)) {
        hcpumf_trap_every(cpu, tab, ARCH_IDX);
    } else {
        for (k = 0; k < HCPUMF_N_ENABLING_OPS; k++)
            for (i = 0; i < 256; i++)
                tab[ops[k] << 8 | i] = hcpumf_tick_fn[ARCH_IDX];
        hcpumf_arm_[cpu].nfew = HCPUMF_WATCH;
    }
    __atomic_store_n(&hcpumf_arm_[cpu].s, 2, __ATOMIC_RELEASE);
}

#if !defined(_GEN_ARCH)

#define _GEN_ARCH HCPUMF_ARCH_PASS2
#include "arming_hyperion.c"
#undef _GEN_ARCH
#define _GEN_ARCH HCPUMF_ARCH_PASS3
#include "arming_hyperion.c"

/* Give CPU `cpu` its copies (those it has are kept). 1 when it has all of them. */
static int hcpumf_alloc_tables(int cpu)
{
    int a, ok = 1;
    pthread_mutex_lock(&hcpumf_tables_lock);
    for (a = 0; a < NUM_GEN_ARCHS; a++) {
        if (!hcpumf_percpu[cpu][a] && hcpumf_master[a]) {
            /* Never freed (see the top). */
            hcpumf_func *p = malloc(HCPUMF_NTAB * sizeof(hcpumf_func));
            if (p)
                memcpy(p, hcpumf_master[a], HCPUMF_NTAB * sizeof(hcpumf_func));
            hcpumf_percpu[cpu][a] = p;
        }
        ok = ok && hcpumf_percpu[cpu][a];
    }
    pthread_mutex_unlock(&hcpumf_tables_lock);
    return ok;
}

/* Hyperion's global table of architecture index `a`: init_regs_runtime_opcode_pointers
 * stores its address in a REGS. A scratch REGS, because a CPU's REGS may point at a copy
 * left by an earlier load. */
static int hcpumf_find_global_tables(void)
{
    int a;
    REGS *r = calloc(1, sizeof(REGS));
    if (!r)
        return 0;
    init_regs_runtime_opcode_pointers(r);
    for (a = 0; a < NUM_GEN_ARCHS; a++)
        hcpumf_global[a] = (hcpumf_func *)*hcpumf_regs_table(r, a);
    free(r);
    return hcpumf_global[0] && hcpumf_global[1] && hcpumf_global[2];
}

/* The instruction section, every CPU stopped: master tables, every configured CPU's copies
 * (adopting those of an earlier load, brought up to date), bootstrap entries. 0 = done. */
int hcpumf_tables_load(void)
{
    int a, cpu, i;
    hcpumf_bootstrap_fn[ARCH_370_IDX] = s370_hcpumf_bootstrap;
    hcpumf_bootstrap_fn[ARCH_390_IDX] = s390_hcpumf_bootstrap;
    hcpumf_bootstrap_fn[ARCH_900_IDX] = z900_hcpumf_bootstrap;
    hcpumf_tick_fn[ARCH_370_IDX] = s370_hcpumf_tick;
    hcpumf_tick_fn[ARCH_390_IDX] = s390_hcpumf_tick;
    hcpumf_tick_fn[ARCH_900_IDX] = z900_hcpumf_tick;
    hcpumf_tables_unloading = 0;
    if (!hcpumf_find_global_tables())
        return -1;
    for (a = 0; a < NUM_GEN_ARCHS; a++) {
        if (!hcpumf_master[a] && !(hcpumf_master[a] = malloc(HCPUMF_NTAB * sizeof(hcpumf_func))))
            return -1;
        memcpy(hcpumf_master[a], hcpumf_global[a], HCPUMF_NTAB * sizeof(hcpumf_func));
    }
    for (cpu = 0; cpu < HCPUMF_MAX_ENGINES; cpu++) {
        REGS *r = IS_CPU_ONLINE(cpu) ? sysblk.regs[cpu] : NULL;
        if (!r)
            continue;
        for (a = 0; a < NUM_GEN_ARCHS; a++) {
            hcpumf_func *p = (hcpumf_func *)*hcpumf_regs_table(r, a);
            /* A copy of an earlier load: the CPU's run_cpu may still dispatch through it. */
            if (p && p != hcpumf_global[a]) {
                memcpy(p, hcpumf_master[a], HCPUMF_NTAB * sizeof(hcpumf_func));
                hcpumf_percpu[cpu][a] = p;
            }
        }
        hcpumf_alloc_tables(cpu);
        hcpumf_arm_[cpu].s = 0;
    }
    for (a = 0; a < NUM_GEN_ARCHS; a++)
        for (i = 0; i < HCPUMF_NTAB; i++)
            hcpumf_global[a][i] = hcpumf_bootstrap_fn[a];
    return 0;
}

/* The final section: every CPU's copy without trapping entries, the global tables back
 * (no bootstrap entries). The hook keeps forwarding and copying from now on. */
void hcpumf_tables_unload(void)
{
    int a;
    hcpumf_tables_unloading = 1;
    pthread_mutex_lock(&hcpumf_tables_lock);
    for (a = 0; a < NUM_GEN_ARCHS; a++)
        if (hcpumf_master[a] && hcpumf_global[a])
            memcpy(hcpumf_global[a], hcpumf_master[a], HCPUMF_NTAB * sizeof(hcpumf_func));
    pthread_mutex_unlock(&hcpumf_tables_lock);
}

void hcpumf_tables_resolve(void *next_replace_opcode)
{
    hcpumf_next_replace_opcode = (REPOPCODE *)next_replace_opcode;
}

/* The function Hyperion's table holds (would hold, without bootstrap entries) at `index`. */
hcpumf_func hcpumf_table_entry(int arch, int index)
{
    return hcpumf_master[arch] ? hcpumf_master[arch][index] : NULL;
}

/* Hyperion's replace_opcode, hooked (see the top). Only row opcode1 of the 65,536-entry
 * table can change (the E3, EB, ... second-level tables are Hyperion's own and shared).
 * Opcodes change with every CPU stopped (HDL and the facility command insist), so the
 * copies are written under no CPU's feet. */
void *hcpumf_replace_opcode(int arch, hcpumf_func inst, int opcode1, int opcode2)
{
    REPOPCODE *next = hcpumf_next_replace_opcode ? hcpumf_next_replace_opcode
                                                 : the_real_replace_opcode;
    int row = opcode1 * 256, i, cpu;
    hcpumf_func before;
    void *old;
    if (arch < 0 || arch >= NUM_GEN_ARCHS || !hcpumf_master[arch] || opcode1 < 0
        || opcode1 > 0xFF)
        return next(arch, inst, opcode1, opcode2);
    pthread_mutex_lock(&hcpumf_tables_lock);
    before = hcpumf_master[arch][row + (opcode2 >= 0 && opcode2 <= 0xFF ? opcode2 : 0)];
    old = next(arch, inst, opcode1, opcode2);
    for (i = row; old && i < row + 256; i++) {
        hcpumf_func g = hcpumf_global[arch][i];
        if (g == hcpumf_bootstrap_fn[arch])
            continue;
        hcpumf_master[arch][i] = g;
        for (cpu = 0; cpu < HCPUMF_MAX_ENGINES; cpu++)
            if (hcpumf_percpu[cpu][arch])
                hcpumf_percpu[cpu][arch][i] = g;
        if (!hcpumf_tables_unloading)
            hcpumf_global[arch][i] = hcpumf_bootstrap_fn[arch];
    }
    pthread_mutex_unlock(&hcpumf_tables_lock);
    /* What the caller replaced is what the table held for it, not the bootstrap entry. */
    return old == (void *)hcpumf_bootstrap_fn[arch] ? (void *)before : old;
}

/* The copy CPU `cpu` dispatches through now, or NULL before its bootstrap. */
static hcpumf_func *hcpumf_current_copy(int cpu, REGS *regs)
{
    int a = regs->arch_mode;
    hcpumf_func *p = hcpumf_percpu[cpu][a];
    return p && (hcpumf_func *)*hcpumf_regs_table(regs, a) == p ? p : NULL;
}

/* Arm CPU `cpu` (see hcpumf_arm_mode). 0 = armed (or still armed). */
int hcpumf_h_arm(uint16_t cpu, hcpumf_arm_mode mode)
{
    REGS *regs;
    hcpumf_func *tab = NULL, tick;
    int rc = 1;
    if (cpu >= HCPUMF_MAX_ENGINES || hcpumf_tables_unloading)
        return 1;
    obtain_lock(&sysblk.cpulock[cpu]);
    regs = sysblk.regs[cpu];
    if (IS_CPU_ONLINE(cpu) && regs)
        tab = hcpumf_current_copy(cpu, regs);
    /* A CPU that changed architecture never ran the tick of its old copy. */
    if (hcpumf_arm_[cpu].s == 2 && (!tab || hcpumf_arm_[cpu].arch != regs->arch_mode))
        hcpumf_arm_[cpu].s = 0;
    /* Still armed from before: nothing to do, unless every entry is wanted now, or wanted
     * again (AGAIN: the CPU's thread ran on for milliseconds with every entry trapped). */
    if (hcpumf_arm_[cpu].s == 2 && mode != HCPUMF_ARM_AGAIN
        && hcpumf_arm_[cpu].nfew != HCPUMF_WATCH
        && (mode == HCPUMF_ARM_PREDICTED || hcpumf_arm_[cpu].nfew == 0)) {
        release_lock(&sysblk.cpulock[cpu]);
        return 0;
    }
    /* Not while a tick has the previous arming taken (3): rc 1, nothing armed. */
    if (tab && !regs->sie_active
        && (__sync_bool_compare_and_swap(&hcpumf_arm_[cpu].s, 0, 1)
            || __sync_bool_compare_and_swap(&hcpumf_arm_[cpu].s, 2, 1))) {
        int a = regs->arch_mode;
        BYTE *ip = *(BYTE * volatile *)&regs->ip;
        tick = hcpumf_tick_fn[a];
        hcpumf_arm_[cpu].arch = a;
        /* The CPU thread moves ip as it runs: read it once. It points into main storage
         * while the instruction-fetch accelerator is valid; anything else is no
         * prediction. */
        if (mode == HCPUMF_ARM_PREDICTED && ip && ip >= sysblk.mainstor
            && ip + 12 <= sysblk.mainstor + sysblk.mainsize) {
            U16 op0 = fetch_hw(ip);
            U16 op1 = fetch_hw(ip + (ip[0] < 0x40 ? 2 : ip[0] < 0xC0 ? 4 : 6));
            hcpumf_arm_[cpu].few[0] = op0;
            hcpumf_arm_[cpu].few[1] = op1;
            hcpumf_arm_[cpu].nfew = 2;
            tab[op0] = tick;
            tab[op1] = tick;
        } else {
            hcpumf_trap_every(cpu, tab, a);
        }
        __sync_synchronize();
        hcpumf_arm_[cpu].s = 2;
        rc = 0;
    }
    release_lock(&sysblk.cpulock[cpu]);
    return rc;
}

/* Put back every trapping entry of a CPU's copies (module unload). */
void hcpumf_disarm(int cpu)
{
    int a, i;
    obtain_lock(&sysblk.cpulock[cpu]);
    pthread_mutex_lock(&hcpumf_tables_lock);
    for (a = 0; a < NUM_GEN_ARCHS; a++)
        if (hcpumf_percpu[cpu][a] && hcpumf_master[a])
            for (i = 0; i < HCPUMF_NTAB; i++)
                if (hcpumf_percpu[cpu][a][i] == hcpumf_tick_fn[a])
                    hcpumf_percpu[cpu][a][i] = hcpumf_master[a][i];
    pthread_mutex_unlock(&hcpumf_tables_lock);
    hcpumf_arm_[cpu].s = 0;
    release_lock(&sysblk.cpulock[cpu]);
}

#endif /* !defined(_GEN_ARCH) */
