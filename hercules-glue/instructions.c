/* hcpumf glue: the instructions. Each decodes its operands with Hercules' own macros,
 * fetches and stores them through Hercules' DAT and access-exception machinery and lets the
 * Rust core (include/hcpumf.h) decide which exception, which condition code and which state
 * change; the CPU-measurement instructions, STFLE's facility bits, and the instructions the
 * plugin wraps (SIGP and SERVC for resets, SVC/LPSW/LPSWE for problem-state accounting, the
 * CPACF instructions for the crypto counters). */

#include "hstdinc.h"

#ifndef _HCPUMF_INSTRUCTIONS_C_
#define _HCPUMF_INSTRUCTIONS_C_
#endif

#include "hercules.h"
#include "opcode.h"
#include "inline.h"

#include "internal.h"

#if !defined(HCPUMF_INSTRUCTIONS_ONCE) && defined(HCPUMF_HYPERION)
#define HCPUMF_INSTRUCTIONS_ONCE
/* Per CPU: the instruction that ended Hyperion's batch and is to be executed next. */
static BYTE *hcpumf_settled[HCPUMF_MAX_ENGINES];
#endif

/* SDL Hyperion adds the instructions of run_cpu's inner loop (up to 256) to regs->instcount
 * when the loop ends, or breaks because ip reached aie; an interruption's longjmp adds them
 * only once the system was IPLed. So an instruction that reads the count (a counter
 * instruction, a problem-state switch) first ends the batch: the first time, it marks the
 * instruction-fetch accelerator for a refetch (PSEUDO_INVALID_AIE, as Hyperion's branches to
 * another page do, which leaves the PSW address and ip as they are), returns 1 and is not
 * executed; run_cpu adds the batch and fetches it again, and the second time it returns 0
 * with the count current (within one instruction). Not for the target of an EXECUTE (the
 * EXECUTE has completed) nor for SIE guests: those read the count as it is. */
int ARCH_DEP(hcpumf_settle)(BYTE inst[], REGS *regs)
{
#if defined(HCPUMF_HYPERION)
    int cpu = regs->cpuad;
    if (regs->execflag || regs->hostregs != regs || SIE_MODE(regs) || cpu >= HCPUMF_MAX_ENGINES
        || regs->aie == INVALID_AIE)
        return 0;
    if (hcpumf_settled[cpu] == inst) {
        hcpumf_settled[cpu] = NULL;
        return 0;
    }
    hcpumf_settled[cpu] = inst;
    regs->aie = PSEUDO_INVALID_AIE;
    return 1;
#else
    UNREFERENCED(inst);
    UNREFERENCED(regs);
    return 0;
#endif
}

/* The issuing CPU's state, as the Rust core sees it (crates/arch/src/cpu.rs). */
void ARCH_DEP(hcpumf_view)(REGS *regs, BYTE inst[], hcpumf_view *v)
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
                     || (OPEN_IC_CLKC(regs) && HCPUMF_CLKC_PASSED(regs))
                     || (OPEN_IC_PTIMER(regs) && CPU_TIMER(regs) < 0)
                     || OPEN_IC_ITIMER(regs) || OPEN_IC_ECPSVTIMER(regs)) ? 1 : 0;
    v->ilen = len;
    memcpy(v->inst, inst, len);
    v->cr0 = HCPUMF_CR(regs, 0);
    v->cr4 = HCPUMF_CR(regs, 4);
    v->instcount = regs->hostregs->instcount;
    v->prevcount = regs->hostregs->prevcount;
    v->waitsig = HCPUMF_HOST_TOD_NS(regs->hostregs->waittime);
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

    /* LCCTL starts and stops counting: the count at the instruction. */
    if (op == 0xB284)
        HCPUMF_SETTLE_INSTCOUNT(inst, regs);
    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    S(inst, regs, b2, addr);
    v.addr = addr;
    pgm = hcpumf_precheck(op, &v);
    if (pgm)
        ARCH_DEP(program_interrupt)(regs, pgm);
    if (fetch_len)
        ARCH_DEP(vfetchc)(operand, fetch_len - 1, addr, b2, regs);
    v.tod = HCPUMF_TOD(regs) << 8;
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

    HCPUMF_SETTLE_INSTCOUNT(inst, regs);
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

    HCPUMF_SETTLE_INSTCOUNT(inst, regs);
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

#if !defined(HCPUMF_HYPERION)
/* Exported by libherc (esame.c) but not declared in its headers. */
BYTE *ARCH_DEP(adjust_stfl_data)(int *data_len, REGS *regs);
#endif

/* B2B0 STFLE (Hercules 3.13 only): Hercules' list plus the facility bits the Rust core
 * reports (40, 67, 68, 142). Replaced rather than patched because bit 142 lies beyond
 * Hercules' 16-byte list. Hyperion's STFLE reads its own facility list, which holds the bits
 * while the plugin is loaded (hyperion.c). */
DEF_INST(hcpumf_stfle)
{
#if defined(HCPUMF_STFLE)
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
    HCPUMF_PREV(HCPUMF_W_SIGP, signal_processor)(inst, regs);
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
    HCPUMF_PREV(HCPUMF_W_SERVC, service_call)(inst, regs);
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

/* Returns 1 when the instruction is to be fetched again (hcpumf_settle). */
static int ARCH_DEP(hcpumf_switch)(BYTE inst[], REGS *regs)
{
    hcpumf_view v;
    int next;
    if (!hcpumf_watching(regs->cpuad))
        return 0;
    if (ARCH_DEP(hcpumf_settle)(inst, regs))
        return 1;
    ARCH_DEP(hcpumf_view)(regs, inst, &v);
    /* SVC enters the supervisor state; LPSW and LPSWE load the operand's state. */
    next = inst[0] == 0x0A ? 0 : ARCH_DEP(hcpumf_peek_problem)(inst, regs);
    hcpumf_state_change(&v, next);
    return 0;
}
DEF_INST(hcpumf_svc)
{
    if (ARCH_DEP(hcpumf_switch)(inst, regs))
        return;
    HCPUMF_PREV(HCPUMF_W_SVC, supervisor_call)(inst, regs);
}
DEF_INST(hcpumf_lpsw)
{
    if (ARCH_DEP(hcpumf_switch)(inst, regs))
        return;
    HCPUMF_PREV(HCPUMF_W_LPSW, load_program_status_word)(inst, regs);
}
#if defined(HCPUMF_ZARCH)
DEF_INST(hcpumf_lpswe)
{
    if (ARCH_DEP(hcpumf_switch)(inst, regs))
        return;
    HCPUMF_PREV(HCPUMF_W_LPSWE, load_program_status_word_extended)(inst, regs);
}
#else
/* Registered for z/Architecture only. */
DEF_INST(hcpumf_lpswe) { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
#endif

#if defined(HCPUMF_MSA)
/* CPACF instructions: pass through to Hercules' implementation (3.13's own; with Hyperion,
 * the one in its table at load, normally the dyncrypt module's) and report the function and
 * the host CPU time it took to the crypto-activity counters. */
static void ARCH_DEP(hcpumf_cpacf)(BYTE inst[], REGS *regs, U32 op, hcpumf_func real)
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
#define HCPUMF_CPACF(_op, _slot, _name) \
    ARCH_DEP(hcpumf_cpacf)(inst, regs, _op, (hcpumf_func)HCPUMF_PREV(_slot, _name))
DEF_INST(hcpumf_kimd) { HCPUMF_CPACF(0xB93E, HCPUMF_W_KIMD, compute_intermediate_message_digest_r); }
DEF_INST(hcpumf_klmd) { HCPUMF_CPACF(0xB93F, HCPUMF_W_KLMD, compute_last_message_digest_r); }
DEF_INST(hcpumf_km)   { HCPUMF_CPACF(0xB92E, HCPUMF_W_KM, cipher_message_r); }
DEF_INST(hcpumf_kmc)  { HCPUMF_CPACF(0xB92F, HCPUMF_W_KMC, cipher_message_with_chaining_r); }
DEF_INST(hcpumf_kmac) { HCPUMF_CPACF(0xB91E, HCPUMF_W_KMAC, compute_message_authentication_code_r); }
#undef HCPUMF_CPACF
#else
/* Registered only where the message-security assist exists. */
DEF_INST(hcpumf_kimd) { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
DEF_INST(hcpumf_klmd) { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
DEF_INST(hcpumf_km)   { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
DEF_INST(hcpumf_kmc)  { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
DEF_INST(hcpumf_kmac) { UNREFERENCED(inst); ARCH_DEP(program_interrupt)(regs, PGM_OPERATION_EXCEPTION); }
#endif

#if !defined(_GEN_ARCH)

#define _GEN_ARCH HCPUMF_ARCH_PASS2
#include "instructions.c"
#undef _GEN_ARCH
#define _GEN_ARCH HCPUMF_ARCH_PASS3
#include "instructions.c"

#endif /* !defined(_GEN_ARCH) */
