/* hcpumf: the thin Hercules 3.13 glue of the CPU-measurement facilities.
 *
 * This file only decodes operands, fetches and stores them through Hercules' own DAT and
 * access-exception machinery, presents interruptions and moves data between REGS and the
 * Rust core. Which exception, which condition code, which state change: all of that is
 * decided in Rust (include/hcpumf.h).
 *
 * Like Hercules' own modules (crypto/dyncrypt.c) the file compiles itself once per
 * architecture through the _GEN_ARCH self-include, so every instruction exists as s370_,
 * s390_ and z900_ function. */

#include "hstdinc.h"

#ifndef _HCPUMF_GLUE_C_
#define _HCPUMF_GLUE_C_
#endif

#include "hercules.h"
#include "opcode.h"
#include "inline.h"

#include <pthread.h>
#include <time.h>

#include "glue.h"
#include "hcpumf.h"

/* The HDL entry points are exported by the Rust side (see hcpumf_hdl in glue.h). */
#undef HDL_DEPC
#undef HDL_RESO
#undef HDL_INIT
#undef HDL_FINI
#undef HDL_DINS
#define HDL_DEPC hcpumf_glue_depc
#define HDL_RESO hcpumf_glue_reso
#define HDL_INIT hcpumf_glue_init
#define HDL_FINI hcpumf_glue_fini
#define HDL_DINS hcpumf_glue_dins

#ifndef HCPUMF_GLUE_ONCE
#define HCPUMF_GLUE_ONCE
/* Opcode-table entries a predicted arming traps at most. */
#define HCPUMF_FEW 2
/* Shared between the three architecture passes. */
static hcpumf_host hcpumf_host_services;
/* 0 idle, 1 arming (the sampler writes the table), 2 armed, 3 taken (a tick is putting back
 * the entries of the arming it took; the sampler arms nothing meanwhile, see hcpumf_tick);
 * one cache line per CPU, so that arming one CPU does not take the line from under the
 * others' ticks. `nfew` entries `few` were armed (a prediction of the opcodes the CPU
 * executes next), or every entry when nfew is 0. */
static struct {
    volatile int s;
    volatile int nfew;
    unsigned char few[HCPUMF_FEW];
    char pad[64 - 2 * sizeof(int) - HCPUMF_FEW];
} hcpumf_armstate_[MAX_CPU_ENGINES] __attribute__((aligned(64)));
#define hcpumf_armstate(cpu) (hcpumf_armstate_[cpu].s)
static FUNC hcpumf_saved[MAX_CPU_ENGINES][256];
static FUNC *hcpumf_armed_table[MAX_CPU_ENGINES];
static void hcpumf_disarm(int cpu);
#endif

#undef HCPUMF_GR
#undef HCPUMF_SET_GR
#undef HCPUMF_CR
#undef HCPUMF_ARCH
#if defined(FEATURE_ESAME)
 #define HCPUMF_GR(_regs, _r) ((U64)(_regs)->GR_G(_r))
 #define HCPUMF_SET_GR(_regs, _r, _v) ((_regs)->GR_G(_r) = (_v))
 #define HCPUMF_CR(_regs, _r) ((U64)(_regs)->CR_G(_r))
 #define HCPUMF_ARCH 2
#else
 #define HCPUMF_GR(_regs, _r) ((U64)(_regs)->GR_L(_r))
 #define HCPUMF_SET_GR(_regs, _r, _v) ((_regs)->GR_L(_r) = (U32)(_v))
 #define HCPUMF_CR(_regs, _r) ((U64)(_regs)->CR_L(_r))
 #if defined(FEATURE_S370_CHANNEL)
  #define HCPUMF_ARCH 0
 #else
  #define HCPUMF_ARCH 1
 #endif
#endif

/* The issuing CPU's state, as the Rust core sees it (src/cpu.rs). */
static void ARCH_DEP(hcpumf_view)(REGS *regs, BYTE inst[], hcpumf_view *v)
{
    int len = inst[0] < 0x40 ? 2 : inst[0] < 0xC0 ? 4 : 6;
    memset(v, 0, sizeof(*v));
    v->cpu = regs->cpuad;
    v->arch = HCPUMF_ARCH;
    v->problem = PROBSTATE(&regs->psw) ? 1 : 0;
    v->wait = WAITSTATE(&regs->psw) ? 1 : 0;
    v->dat = REAL_MODE(&regs->psw) ? 0 : 1;
    v->asc = (regs->psw.asc >> 6) & 3;
    v->ext_mask = (regs->psw.sysmask & PSW_EXTMASK) ? 1 : 0;
    /* SA23-2260 "External Interruption": every other external interruption a CPU can have
     * pending comes before the measurement alert (service signal: undefined, left to
     * Hercules). The conditions are the ones Hercules' own external-interruption check
     * uses, so the plugin never takes an alert ahead of an interruption Hercules would
     * present at this boundary. */
    v->ext_higher = (OPEN_IC_INTKEY(regs) || OPEN_IC_MALFALT(regs) || OPEN_IC_EMERSIG(regs)
                     || OPEN_IC_EXTCALL(regs)
                     || (OPEN_IC_CLKC(regs) && tod_clock(regs) > regs->clkc)
                     || (OPEN_IC_PTIMER(regs) && CPU_TIMER(regs) < 0)
                     || OPEN_IC_ITIMER(regs) || OPEN_IC_ECPSVTIMER(regs)) ? 1 : 0;
    v->ilen = len;
    memcpy(v->inst, inst, len);
    v->cr0 = HCPUMF_CR(regs, 0);
    v->cr4 = HCPUMF_CR(regs, 4);
    v->instcount = regs->hostregs->instcount;
    v->prevcount = regs->hostregs->prevcount;
    v->waitsig = regs->hostregs->waittime;
    v->prefix = regs->PX;
    v->cr1 = HCPUMF_CR(regs, 1);
}

/* Apply the Rust core's decision about an instruction. */
static void ARCH_DEP(hcpumf_finish)(REGS *regs, int r1, int b2, VADR addr, hcpumf_result *res)
{
    U32 done;
    if (res->pgm)
        ARCH_DEP(program_interrupt)(regs, res->pgm);
    if (res->store_len) {
        /* Access exceptions for the whole operand before any byte is stored. */
        ARCH_DEP(validate_operand)(addr, b2, res->store_len - 1, ACCTYPE_WRITE, regs);
        for (done = 0; done < res->store_len; done += 256) {
            U32 n = res->store_len - done > 256 ? 256 : res->store_len - done;
            ARCH_DEP(vstorec)(res->store + done, n - 1,
                              (addr + done) & ADDRESS_MAXWRAP(regs), b2, regs);
        }
    }
    if (res->set_r1)
        HCPUMF_SET_GR(regs, r1, res->r1);
    if (res->cc >= 0)
        regs->psw.cc = res->cc;
}

/* S-format instructions with an 8- or 64-byte second operand to fetch (LPP, LCCTL, LPCTL,
 * LSCTL) or a 64-byte block to store (QSI, QCTRI). */
static void ARCH_DEP(hcpumf_s_format)(BYTE inst[], REGS *regs, U32 op, int fetch_len)
{
    int b2;
    VADR addr;
    hcpumf_view v;
    hcpumf_result res;
    BYTE operand[64];
    U16 pgm;

    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    S(inst, regs, b2, addr);
    v.addr = addr;
    pgm = hcpumf_precheck(op, &v);
    if (pgm)
        ARCH_DEP(program_interrupt)(regs, pgm);
    if (fetch_len)
        ARCH_DEP(vfetchc)(operand, fetch_len - 1, addr, b2, regs);
    v.tod = tod_clock(regs) << 8;
    hcpumf_execute(op, &v, operand, fetch_len, &res);
    ARCH_DEP(hcpumf_finish)(regs, 0, b2, addr, &res);
}

/* RRE-format instructions: ECCTR, SCCTR, EPCTR, SPCTR, ECPGA. */
static void ARCH_DEP(hcpumf_rre_format)(BYTE inst[], REGS *regs, U32 op)
{
    int r1, r2;
    hcpumf_view v;
    hcpumf_result res;
    U16 pgm;

    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    RRE(inst, regs, r1, r2);
    v.r1 = HCPUMF_GR(regs, r1);
    v.r2 = HCPUMF_GR(regs, r2);
    pgm = hcpumf_precheck(op, &v);
    if (pgm)
        ARCH_DEP(program_interrupt)(regs, pgm);
    hcpumf_execute(op, &v, NULL, 0, &res);
    ARCH_DEP(hcpumf_finish)(regs, r1, 0, 0, &res);
}

DEF_INST(hcpumf_lpp)   { ARCH_DEP(hcpumf_s_format)(inst, regs, 0xB280, 8); }
DEF_INST(hcpumf_lcctl) { ARCH_DEP(hcpumf_s_format)(inst, regs, 0xB284, 8); }
DEF_INST(hcpumf_lpctl) { ARCH_DEP(hcpumf_s_format)(inst, regs, 0xB285, 8); }
DEF_INST(hcpumf_qsi)   { ARCH_DEP(hcpumf_s_format)(inst, regs, 0xB286, 0); }
DEF_INST(hcpumf_lsctl) { ARCH_DEP(hcpumf_s_format)(inst, regs, 0xB287, 64); }
DEF_INST(hcpumf_qctri) { ARCH_DEP(hcpumf_s_format)(inst, regs, 0xB28E, 0); }
DEF_INST(hcpumf_scctr) { ARCH_DEP(hcpumf_rre_format)(inst, regs, 0xB2E0); }
DEF_INST(hcpumf_spctr) { ARCH_DEP(hcpumf_rre_format)(inst, regs, 0xB2E1); }
DEF_INST(hcpumf_ecctr) { ARCH_DEP(hcpumf_rre_format)(inst, regs, 0xB2E4); }
DEF_INST(hcpumf_epctr) { ARCH_DEP(hcpumf_rre_format)(inst, regs, 0xB2E5); }
DEF_INST(hcpumf_ecpga) { ARCH_DEP(hcpumf_rre_format)(inst, regs, 0xB2ED); }

/* EB17 STCCTM R1,M3,D2(B2) [RSY-b] */
DEF_INST(hcpumf_stcctm)
{
    int r1, m3, b2;
    VADR addr;
    hcpumf_view v;
    hcpumf_result res;
    U16 pgm;

    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    RSY(inst, regs, r1, m3, b2, addr);
    v.r1 = HCPUMF_GR(regs, r1);
    v.m3 = m3;
    v.addr = addr;
    pgm = hcpumf_precheck(0xEB17, &v);
    if (pgm)
        ARCH_DEP(program_interrupt)(regs, pgm);
    hcpumf_execute(0xEB17, &v, NULL, 0, &res);
    ARCH_DEP(hcpumf_finish)(regs, r1, b2, addr, &res);
}

/* Exported by libherc (esame.c) but not declared in its headers. */
BYTE *ARCH_DEP(adjust_stfl_data)(int *data_len, REGS *regs);

/* B2B0 STFLE: Hercules' list plus the facility bits the Rust core reports (40, 67, 68, 142).
 * Replaced rather than patched because bit 142 lies beyond Hercules' 16-byte list. */
DEF_INST(hcpumf_stfle)
{
#if defined(FEATURE_STORE_FACILITY_LIST_EXTENDED)
    int b2, ndbl, nmax, data_len, cc;
    VADR addr;
    BYTE list[32];
    BYTE *stfl;

    S(inst, regs, b2, addr);
    DW_CHECK(addr, regs);
    memset(list, 0, sizeof(list));
    stfl = ARCH_DEP(adjust_stfl_data)(&data_len, regs);
    if (data_len > (int)sizeof(list))
        data_len = sizeof(list);
    memcpy(list, stfl, data_len);
    data_len = hcpumf_facility_list(list, sizeof(list), data_len, HCPUMF_ARCH);
    nmax = (data_len + 7) / 8;
    ndbl = regs->GR_LHLCL(0) + 1;
    if (ndbl >= nmax) {
        ndbl = nmax;
        cc = 0;
    } else
        cc = 3;
    ARCH_DEP(vstorec)(list, ndbl * 8 - 1, addr, b2, regs);
    regs->GR_LHLCL(0) = nmax - 1;
    regs->psw.cc = cc;
#else
    /* Registered for z/Architecture only. */
    ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION);
    UNREFERENCED(inst);
#endif
}

/* AE SIGP: Hercules performs the order; the Rust core resets the target's measurement
 * state for the CPU reset and initial CPU reset orders (SA23-2260: "CPU reset", "initial
 * CPU reset"). */
DEF_INST(hcpumf_sigp)
{
    int r1, r3, b2;
    VADR addr;
    hcpumf_view v;

    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    RS_B(inst, regs, r1, r3, b2, addr);
    /* Hercules' SIGP may leave through longjmp (RETURN_INTCHECK), so this comes first. */
    hcpumf_sigp(&v, addr & 0xFF, regs->GR_LHL(r3));
    ARCH_DEP(signal_processor)(inst, regs);
}

/* B220 SERVC: Hercules performs the SCLP command; for "configure CPU" the Rust core first
 * resets that CPU's measurement state (an initial CPU reset, which configure_cpu performs
 * on the rest of the CPU's state). */
DEF_INST(hcpumf_servc)
{
    int r1, r2;
    hcpumf_view v;

    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    RRE(inst, regs, r1, r2);
    UNREFERENCED(r2);
    /* Hercules' SERVC may leave through a program interruption (longjmp): this comes first,
     * and resets only a CPU outside the configuration, which nothing can observe. */
    hcpumf_servc(&v, regs->GR_L(r1));
    ARCH_DEP(service_call)(inst, regs);
}

/* Instructions that change the problem-state bit (SVC in, LPSW/LPSWE out): while the
 * problem-state counters or a HIS run need it, account just before the change so that the
 * instructions since the last accounting point go to the state they ran in. */
/* The problem-state bit of the PSW an LPSW/LPSWE is about to load (byte 1, bit 15), read
 * without raising any exception: -1 when the operand cannot be reached (the instruction
 * itself will then take the exception). */
static int ARCH_DEP(hcpumf_peek_problem)(BYTE inst[], REGS *regs)
{
    int b2 = inst[2] >> 4;
    VADR ea = ((inst[2] & 0x0F) << 8) | inst[3];
    RADR raddr;
    if (b2)
        ea += regs->GR(b2);
    ea = (ea + 1) & ADDRESS_MAXWRAP(regs);
    if (REAL_MODE(&regs->psw))
        raddr = ea;
    else {
        if (ARCH_DEP(translate_addr)(ea, b2, regs, ACCTYPE_LRA))
            return -1;
        raddr = regs->dat.raddr;
    }
    raddr = APPLY_PREFIXING(raddr, regs->PX);
    if (raddr > regs->mainlim)
        return -1;
    return (regs->mainstor[raddr] & 0x01) ? 1 : 0;
}

static void ARCH_DEP(hcpumf_switch)(BYTE inst[], REGS *regs)
{
    hcpumf_view v;
    int next;
    if (!hcpumf_watching(regs->cpuad))
        return;
    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    /* SVC enters the supervisor state; LPSW and LPSWE load the operand's state. */
    next = inst[0] == 0x0A ? 0 : ARCH_DEP(hcpumf_peek_problem)(inst, regs);
    hcpumf_state_change(&v, next);
}
DEF_INST(hcpumf_svc)  { ARCH_DEP(hcpumf_switch)(inst, regs); ARCH_DEP(supervisor_call)(inst, regs); }
DEF_INST(hcpumf_lpsw) { ARCH_DEP(hcpumf_switch)(inst, regs); ARCH_DEP(load_program_status_word)(inst, regs); }
#if defined(FEATURE_ESAME)
DEF_INST(hcpumf_lpswe) { ARCH_DEP(hcpumf_switch)(inst, regs); ARCH_DEP(load_program_status_word_extended)(inst, regs); }
#else
/* Registered for z/Architecture only. */
DEF_INST(hcpumf_lpswe) { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
#endif

#if defined(FEATURE_MESSAGE_SECURITY_ASSIST)
/* CPACF instructions: pass through to Hercules' implementation and report the function and
 * the host CPU time it took to the crypto-activity counters. */
static void ARCH_DEP(hcpumf_cpacf)(BYTE inst[], REGS *regs, U32 op, zz_func real)
{
    struct timespec t0, t1;
    U16 cpu = regs->cpuad;
    U32 fc = regs->GR_L(0) & 0x7F;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    hcpumf_crypto_begin(cpu, op, fc);
    real(inst, regs);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    hcpumf_crypto_end(cpu, op, fc,
                      (U64)(t1.tv_sec - t0.tv_sec) * 1000000000ULL + t1.tv_nsec - t0.tv_nsec);
}
DEF_INST(hcpumf_kimd) { ARCH_DEP(hcpumf_cpacf)(inst, regs, 0xB93E, ARCH_DEP(compute_intermediate_message_digest_r)); }
DEF_INST(hcpumf_klmd) { ARCH_DEP(hcpumf_cpacf)(inst, regs, 0xB93F, ARCH_DEP(compute_last_message_digest_r)); }
DEF_INST(hcpumf_km)   { ARCH_DEP(hcpumf_cpacf)(inst, regs, 0xB92E, ARCH_DEP(cipher_message_r)); }
DEF_INST(hcpumf_kmc)  { ARCH_DEP(hcpumf_cpacf)(inst, regs, 0xB92F, ARCH_DEP(cipher_message_with_chaining_r)); }
DEF_INST(hcpumf_kmac) { ARCH_DEP(hcpumf_cpacf)(inst, regs, 0xB91E, ARCH_DEP(compute_message_authentication_code_r)); }
#else
/* Registered only where the message-security assist exists. */
DEF_INST(hcpumf_kimd) { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
DEF_INST(hcpumf_klmd) { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
DEF_INST(hcpumf_km)   { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
DEF_INST(hcpumf_kmc)  { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
DEF_INST(hcpumf_kmac) { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
#endif

/* Present the measurement alert (external interruption code 1407 hex, parameter at real
 * 128-131). Called with the interrupt lock held. Returns the program-interruption code of an
 * invalid external new PSW, or 0. */
static int ARCH_DEP(hcpumf_present)(REGS *regs, U32 param)
{
    PSA *psa = (void *)(regs->mainstor + regs->PX);
    STORAGE_KEY(regs->PX, regs) |= (STORKEY_REF | STORKEY_CHANGE);
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

/* Runs on the CPU's own thread in place of the next instruction after the sampler armed the
 * CPU's opcode table: restore the table, let the Rust core account, sample and decide on an
 * alert, then execute the instruction (or take the interruption before it). */
static void ARCH_DEP(hcpumf_tick)(BYTE inst[], REGS *regs)
{
    int cpu = regs->cpuad;
    FUNC orig = hcpumf_saved[cpu][inst[0]];
    hcpumf_view v;
    U32 param = 0;
    int k, nfew;
    BYTE few[HCPUMF_FEW];

    /* Restore only this opcode's entry: the others are put back as the CPU meets them, so
     * a tick touches the table lines the guest uses rather than all 2 KB of them. */
    regs->ARCH_DEP(opcode_table)[inst[0]] = orig;
    /* The sampler is writing the table right now (under the CPU lock, well under a
     * microsecond): wait for it, or this very entry could be the only one the guest uses. */
    while (hcpumf_armstate(cpu) == 1)
        __builtin_ia32_pause();
    /* Take the arming (2 -> 3) before putting its predicted entries back, and let the
     * sampler arm again (-> 0) only after. Released first, the sampler could make a new
     * arming in between (it escalates a CPU it still sees armed until the Rust tick below
     * says otherwise) whose entries of these very opcodes, the ones the CPU is executing,
     * this loop would then put back: the new arming would never trap, and the glue, seeing
     * it in place, would refuse the sampler's next armings (issue 21: milliseconds without
     * a sample, until the sampler's "lost and made again"). */
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
    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    SET_PSW_IA(regs);
    v.ia = regs->psw.IA;
    /* Left for the core to read when it needs it: tod_clock takes Hercules' TOD lock. */
    v.tod = 0;
    /* Only accounting points need it (hw_clock takes Hercules' TOD lock). */
    v.timer_due = hcpumf_watching(cpu) && ARCH_DEP(hcpumf_timer_due)(regs);
    /* The target of an EXECUTE is never interrupted half-way: the alert stays pending. */
    if (!regs->execflag && hcpumf_tick(&v, &param)) {
        int rc;
        OBTAIN_INTLOCK(regs);
        rc = ARCH_DEP(hcpumf_present)(regs, param);
        RELEASE_INTLOCK(regs);
        if (rc)
            ARCH_DEP(program_interrupt)(regs, rc);
        longjmp(regs->progjmp, SIE_NO_INTERCEPT);
    }
    if (regs->execflag)
        hcpumf_tick(&v, &param);
    orig(inst, regs);
}

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

/* Read a running CPU's state from the sampler thread, for a basic-sampling data entry taken
 * without stopping the CPU. The CPU thread keeps its instruction address in the
 * instruction-fetch accelerator (ip within the page aip, at virtual AIV, while aie is set;
 * see PSW_IA), which it changes as it runs. A PSW load (interruptions, SVC, LPSW) first
 * clears aie (INVALIDATE_AIA), then stores the new PSW's bits, then its address: so the PSW
 * bits are read first, then the page fields, ip, and the page fields again, which must agree
 * and hold ip, with aie set. With the loads in order (acquire fences) and the CPU's stores
 * in order (x86), bits read before an aie that is still set afterwards belong to the same
 * instruction as ip (a PSW load that had begun would have cleared aie first). With aie
 * clear (the CPU is between a PSW load and its next instruction fetch) or after eight
 * disagreeing reads, 0: the tick takes it. */
static int ARCH_DEP(hcpumf_peek_regs)(REGS *regs, int accounting, hcpumf_peek *p)
{
    volatile REGS *r = regs;
    struct { PSW psw; } snap; /* the PSW bits read, for Hercules' PSW macros */
    PSW *psw = &snap.psw;
    int k;
    if (r->cpustate != CPUSTATE_STARTED || r->sie_active || r->execflag || r->hostregs != regs)
        return 0;
    memset(&snap, 0, sizeof(snap));
    for (k = 0; k < 8; k++) {
        BYTE *aie1, *aip1, *aie2, *aip2, *ip;
        U64 aiv1, aiv2;
        psw->sysmask = r->psw.sysmask;
        psw->states = r->psw.states;
        psw->asc = r->psw.asc;
        psw->amask.D = r->psw.amask.D;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        aie1 = r->aie;
        aip1 = r->aip;
        aiv1 = r->AIV;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        ip = r->ip;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        aie2 = r->aie;
        aip2 = r->aip;
        aiv2 = r->AIV;
        if (aie1 == NULL || aie1 != aie2 || aip1 != aip2 || aiv1 != aiv2)
            continue;
        if (ip < aip1 || ip >= aip1 + PAGEFRAME_PAGESIZE)
            continue;
        if (WAITSTATE(psw))
            return 0;
        p->ia = (aiv1 + (U64)(ip - aip1)) & ADDRESS_MAXWRAP(&snap);
        p->arch = HCPUMF_ARCH;
        p->problem = PROBSTATE(psw) ? 1 : 0;
        p->dat = REAL_MODE(psw) ? 0 : 1;
        p->asc = (psw->asc >> 6) & 3;
        p->cr0 = HCPUMF_CR(regs, 0);
        p->cr1 = HCPUMF_CR(regs, 1);
        p->cr4 = HCPUMF_CR(regs, 4);
        p->prefix = regs->PX;
        p->instcount = r->instcount;
        p->prevcount = r->prevcount;
        p->timer_due = accounting && ARCH_DEP(hcpumf_timer_due)(regs);
        return r->cpustate == CPUSTATE_STARTED;
    }
    return 0;
}

/* Hercules copies the first-level opcode table into each CPU's REGS when the CPU comes
 * online and does not refresh it on ldmod/rmmod, so the first-level instructions the plugin
 * wraps (SIGP, SVC, LPSW) are put into (or taken out of) the tables of online CPUs here. */
static void ARCH_DEP(hcpumf_patch)(REGS *regs, int install)
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
 * Predicted (all = 0): only the entries of the instruction the CPU is executing and of the
 * one after it, read from its instruction pointer: a loop executes the first again within an
 * iteration, straight-line code the second at once. Every entry has to be rewritten only
 * when that prediction fails (all = 1): each rewritten entry is a cache line taken from the
 * CPU's core and a trap more when the CPU next executes it. */
static void ARCH_DEP(hcpumf_arm)(REGS *regs, int all)
{
    int cpu = regs->cpuad, i;
    FUNC *table = regs->ARCH_DEP(opcode_table);
    if (hcpumf_armed_table[cpu] != table) {
        /* First arming of this table (or new REGS after an architecture switch). */
        memcpy(hcpumf_saved[cpu], table, sizeof(hcpumf_saved[cpu]));
        hcpumf_armed_table[cpu] = table;
    }
    if (!all) {
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

#if !defined(_GEN_ARCH)

#if defined(_ARCHMODE2)
 #define _GEN_ARCH _ARCHMODE2
 #include "hcpumf_glue.c"
#endif
#if defined(_ARCHMODE3)
 #undef _GEN_ARCH
 #define _GEN_ARCH _ARCHMODE3
 #include "hcpumf_glue.c"
#endif

/* ---------------------------------------------------------------- host services ------- */

/* Call the s370_, s390_ or z900_ variant of a per-architecture function for a CPU. */
#define HCPUMF_PER_ARCH(_regs, _fn, ...)                       \
    do {                                                       \
        switch ((_regs)->arch_mode) {                          \
        case ARCH_370: s370_##_fn(__VA_ARGS__); break;         \
        case ARCH_390: s390_##_fn(__VA_ARGS__); break;         \
        case ARCH_900: z900_##_fn(__VA_ARGS__); break;         \
        }                                                      \
    } while (0)

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
        __atomic_fetch_or(&STORAGE_KEY(abs, &sysblk), STORKEY_REF | STORKEY_CHANGE,
                          __ATOMIC_RELAXED);
}

static FUNC *hcpumf_current_table(REGS *regs)
{
    switch (regs->arch_mode) {
    case ARCH_370: return s370_hcpumf_table(regs);
    case ARCH_390: return s390_hcpumf_table(regs);
    case ARCH_900: return z900_hcpumf_table(regs);
    }
    return NULL;
}

static int hcpumf_h_arm(uint16_t cpu, int all)
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
     * entry yet): nothing to do, unless every entry is wanted now, or wanted again (all = 2:
     * the CPU's thread ran on for milliseconds with every entry trapped, so something put
     * entries back without a tick; trapping is idempotent). */
    if (hcpumf_armstate(cpu) == 2 && all < 2 && (!all || hcpumf_armstate_[cpu].nfew == 0)) {
        release_lock(&sysblk.cpulock[cpu]);
        return 0;
    }
    /* Not while a tick has the previous arming taken (3): it is putting back entries that
     * this arming would trap. The CPU is at an instruction boundary in its tick, which posts
     * the CPU's next deadline; rc 1 tells the sampler nothing was armed. */
    if (IS_CPU_ONLINE(cpu) && regs && !regs->sie_active
        && (__sync_bool_compare_and_swap(&hcpumf_armstate(cpu), 0, 1)
            || __sync_bool_compare_and_swap(&hcpumf_armstate(cpu), 2, 1))) {
        HCPUMF_PER_ARCH(regs, hcpumf_arm, regs, all);
        __sync_synchronize();
        hcpumf_armstate(cpu) = 2;
        rc = 0;
    }
    release_lock(&sysblk.cpulock[cpu]);
    return rc;
}

/* Put back a CPU's table (module unload); the CPU may be running the tick concurrently, in
 * which case both write the same saved entries. */
static void hcpumf_disarm(int cpu)
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

static void hcpumf_patch_all(int install)
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

static void hcpumf_h_kick_waiting(uint16_t cpu)
{
    REGS *regs;
    if (cpu >= MAX_CPU_ENGINES)
        return;
    OBTAIN_INTLOCK(NULL);
    regs = sysblk.regs[cpu];
    if (IS_CPU_ONLINE(cpu) && regs) {
        HCPUMF_PER_ARCH(regs, hcpumf_kick, regs);
    }
    RELEASE_INTLOCK(NULL);
}

static int hcpumf_h_peek(uint16_t cpu, int accounting, hcpumf_peek *out)
{
    REGS *regs;
    int rc = 0;
    if (cpu >= MAX_CPU_ENGINES)
        return 0;
    memset(out, 0, sizeof(*out));
    obtain_lock(&sysblk.cpulock[cpu]);
    regs = sysblk.regs[cpu];
    if (IS_CPU_ONLINE(cpu) && regs) {
        switch (regs->arch_mode) {
        case ARCH_370: rc = s370_hcpumf_peek_regs(regs, accounting, out); break;
        case ARCH_390: rc = s390_hcpumf_peek_regs(regs, accounting, out); break;
        case ARCH_900: rc = z900_hcpumf_peek_regs(regs, accounting, out); break;
        }
    }
    release_lock(&sysblk.cpulock[cpu]);
    return rc;
}

static uint16_t hcpumf_h_machine_type(void)
{
    return (uint16_t)((sysblk.cpuid >> 16) & 0xFFFF);
}

static int hcpumf_h_cpu_online(uint16_t cpu)
{
    return cpu < MAX_CPU_ENGINES && IS_CPU_ONLINE(cpu);
}

static uint16_t hcpumf_h_max_cpu(void)
{
    return MAX_CPU_ENGINES - 1;
}

static uint64_t hcpumf_h_thread_cputime_ns(uint16_t cpu)
{
    clockid_t cid;
    struct timespec ts;
    uint64_t ns = 0;
    if (cpu >= MAX_CPU_ENGINES)
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
    if (cpu >= MAX_CPU_ENGINES)
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
    for (cpu = 0; cpu < MAX_CPU_ENGINES; cpu++)
        if (IS_CPU_ONLINE(cpu) && sysblk.regs[cpu])
            return (uint64_t)tod_clock(sysblk.regs[cpu]) << 8;
    return (uint64_t)hw_clock() << 8;
}

static uint8_t hcpumf_h_cpu_state(uint16_t cpu, uint8_t *state)
{
    REGS *regs;
    uint8_t arch = 255;
    *state = 0;
    if (cpu >= MAX_CPU_ENGINES)
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
    hcpumf_host *h = &hcpumf_host_services;
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
    HDL_REGISTER(system_command, hcpumf_system_command);
    HDL_REGISTER(debug_cpu_state, hcpumf_debug_cpu_state);
    hcpumf_load(h);
}
END_REGISTER_SECTION;

HDL_RESOLVER_SECTION;
{
}
END_RESOLVER_SECTION;

HDL_INSTRUCTION_SECTION;
{
    /* S/370 and ESA/390 get the instructions too; the Rust core answers with an operation
     * exception there unless the operator allowed those architectures. */
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB280, hcpumf_lpp);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB284, hcpumf_lcctl);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB285, hcpumf_lpctl);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB286, hcpumf_qsi);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB287, hcpumf_lsctl);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB28E, hcpumf_qctri);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB2E0, hcpumf_scctr);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB2E1, hcpumf_spctr);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB2E4, hcpumf_ecctr);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB2E5, hcpumf_epctr);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xB2ED, hcpumf_ecpga);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xEB17, hcpumf_stcctm);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0xAE, hcpumf_sigp);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0x0A, hcpumf_svc);
    HDL_DEFINST(HDL_INSTARCH_ALL, 0x82, hcpumf_lpsw);
    HDL_DEFINST(HDL_INSTARCH_900, 0xB2B2, hcpumf_lpswe);
    HDL_DEFINST(HDL_INSTARCH_900, 0xB2B0, hcpumf_stfle);
    HDL_DEFINST(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB220, hcpumf_servc);
    HDL_DEFINST(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB93E, hcpumf_kimd);
    HDL_DEFINST(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB93F, hcpumf_klmd);
    HDL_DEFINST(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB92E, hcpumf_km);
    HDL_DEFINST(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB92F, hcpumf_kmc);
    HDL_DEFINST(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB91E, hcpumf_kmac);
    hcpumf_patch_all(1);
}
END_INSTRUCTION_SECTION;

HDL_FINAL_SECTION;
{
    int cpu;
    hcpumf_unload();
    for (cpu = 0; cpu < MAX_CPU_ENGINES; cpu++)
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

#endif /* !defined(_GEN_ARCH) */
