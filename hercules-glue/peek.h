/* hcpumf glue: reading a running CPU from the sampler thread, for samples taken without
 * stopping it (host::remote). Included by arming.c in each architecture's pass (ARCH_DEP),
 * so it has no include guard; what must be defined once is guarded by its own macro. */

/* What a peek (a sample or a wait sample taken from outside the CPU) reads of a CPU's PSW
 * snapshot `psw` and its registers `regs` (`r`: the same, volatile). Expanded in each
 * architecture's pass. */
#ifndef HCPUMF_PEEK_STATE
#define HCPUMF_PEEK_STATE(p, psw, regs, r)                                                  \
    do {                                                                                    \
        (p)->arch = HCPUMF_ARCH;                                                            \
        (p)->problem = PROBSTATE(psw) ? 1 : 0;                                              \
        (p)->dat = REAL_MODE(psw) ? 0 : 1;                                                  \
        (p)->asc = ((psw)->asc >> 6) & 3;                                                   \
        (p)->cr0 = HCPUMF_CR(regs, 0);                                                      \
        (p)->cr1 = HCPUMF_CR(regs, 1);                                                      \
        (p)->cr4 = HCPUMF_CR(regs, 4);                                                      \
        (p)->prefix = (regs)->PX;                                                           \
        (p)->instcount = (r)->instcount;                                                    \
        (p)->prevcount = (r)->prevcount;                                                    \
    } while (0)
#endif

#ifndef HCPUMF_PEEK_TYPES
#define HCPUMF_PEEK_TYPES
/* The instruction-fetch accelerator of a CPU (see PSW_IA): its page fields. */
typedef struct { BYTE *aie, *aip; U64 aiv; } hcpumf_aia;
#define HCPUMF_READ_AIA(a, r) ((a).aie = (r)->aie, (a).aip = (r)->aip, (a).aiv = (r)->AIV)
#define HCPUMF_SAME_AIA(a, b) ((a).aie == (b).aie && (a).aip == (b).aip && (a).aiv == (b).aiv)

/* The PSW bits a peek reports (the state, the ASC, DAT, the addressing mode). */
typedef struct { BYTE sysmask, states, asc; U64 amask; } hcpumf_psw_bits;
#define HCPUMF_READ_BITS(b, r)                                                              \
    ((b).sysmask = (r)->psw.sysmask, (b).states = (r)->psw.states, (b).asc = (r)->psw.asc, \
     (b).amask = (r)->psw.amask.D)
#define HCPUMF_SAME_BITS(a, b)                                                              \
    ((a).sysmask == (b).sysmask && (a).states == (b).states && (a).asc == (b).asc &&       \
     (a).amask == (b).amask)
/* Put bits read into a PSW snapshot, for Hercules' PSW macros. */
#define HCPUMF_SET_BITS(psw, b)                                                             \
    ((psw)->sysmask = (b).sysmask, (psw)->states = (b).states, (psw)->asc = (b).asc,       \
     (psw)->amask.D = (b).amask)
#endif

/* Read a running CPU's state from the sampler thread, for a basic-sampling data entry taken
 * without stopping the CPU. The CPU thread keeps its instruction address in the
 * instruction-fetch accelerator (ip within the page aip, at virtual AIV, while aie is set;
 * see PSW_IA), which it changes as it runs. A PSW load (interruptions, SVC, LPSW) first
 * clears aie (INVALIDATE_AIA), then stores the new PSW's bits, then its address, and the
 * next instruction fetch sets aie again for the new address's page.
 *
 * So a read of the bits alone between two agreeing reads of the page fields is not enough:
 * the whole PSW load and the fetch after it can fall between the bits and the first page
 * read (the sampler's thread preempted there on a loaded host), and then the bits are the
 * old PSW's and ip the new one's: CI saw one such entry in 182,511 on SDL Hyperion, an
 * address in a supervisor-state loop with the problem-state bit of the loop the SVC before
 * it left. The reads are therefore, in order (acquire fences; the CPU's stores are in order
 * on x86): Hercules' instruction count, page fields, bits, page fields, ip, page fields,
 * bits, the count. The three page reads must agree with aie set, the two bit reads must
 * agree, and the count must not have moved.
 *
 * The count is what catches a round trip: a state change and back within the read, which
 * returns the page fields and the bits to what they were (seen on SDL Hyperion in a fresh
 * Debian 12 chroot under load: an LPSWE's address with the problem-state bit it was loading,
 * the bits read one round earlier). After a PSW load both Hercules go back to the top of
 * their run loop, and the count moves once the next instruction is fetched (3.13) or has
 * completed (Hyperion). So a round trip moves it, unless nothing but PSW loads happened in
 * the other state (an LPSWE back as its one instruction, whose count Hyperion drops with
 * its longjmp, or interruptions one after another) and the CPU came back to the very page
 * it left, within the read: that much remains. The count moved within about 5% of reads
 * on 3.13 (a debug build counting them in sampling_attribution; it moves every 13
 * instructions there): they are read again.
 *
 * With aie clear (the CPU is between a PSW load and its next instruction fetch) or after
 * eight disagreeing reads, 0: the tick takes it. */
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
        hcpumf_aia a0, a1, a2;
        hcpumf_psw_bits b1, b2;
        BYTE *ip;
        U64 c0, c1;
        c0 = r->instcount;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        HCPUMF_READ_AIA(a0, r);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        HCPUMF_READ_BITS(b1, r);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        HCPUMF_READ_AIA(a1, r);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        ip = r->ip;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        HCPUMF_READ_AIA(a2, r);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        HCPUMF_READ_BITS(b2, r);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        c1 = r->instcount;
        if (c0 != c1 || !HCPUMF_AIE_VALID(a1.aie) || !HCPUMF_SAME_AIA(a0, a1)
            || !HCPUMF_SAME_AIA(a1, a2) || !HCPUMF_SAME_BITS(b1, b2))
            continue;
        if (ip < a1.aip || ip >= a1.aip + PAGEFRAME_PAGESIZE)
            continue;
        HCPUMF_SET_BITS(psw, b1);
        if (WAITSTATE(psw))
            return 0;
        p->ia = (a1.aiv + (U64)(ip - a1.aip)) & ADDRESS_MAXWRAP(&snap);
        HCPUMF_PEEK_STATE(p, psw, regs, r);
        p->timer_due = accounting && ARCH_DEP(hcpumf_timer_due)(regs);
        return r->cpustate == CPUSTATE_STARTED;
    }
    return 0;
}

/* Read a CPU for the samples of a dedicated CPU (the sampler thread, CPU lock held): the
 * time it has waited, and whether it sits in Hercules' wait now with the fields of its wait
 * PSW. A CPU waits between setting its bit in sysblk.waiting_mask (with regs->waittod, the
 * wait's start) and clearing it after it is woken, before it touches its PSW (both under the
 * interrupt lock, which it releases while it sleeps): so the bit and waittod are read before
 * and after the PSW and registers, and a CPU whose bit was on both times with the same
 * waittod waited throughout. Its wait time is regs->waittime (the waits that ended) plus the
 * time since waittod; read while a wait ends it can be behind a reading taken during that
 * wait, which the caller allows for. */
static int ARCH_DEP(hcpumf_peek_wait_regs)(REGS *regs, hcpumf_wait_peek *p)
{
    volatile REGS *r = regs;
    struct { PSW psw; } snap;
    PSW *psw = &snap.psw;
    hcpumf_psw_bits b;
    U64 tod1, tod2, waited;
    int in1, in2;
    if (r->cpustate != CPUSTATE_STARTED || r->sie_active || r->hostregs != regs)
        return 0;
    memset(&snap, 0, sizeof(snap));
    /* (CPU_BITMAP is 128 bits wide in Hyperion: a volatile read, whose half holding the
     * CPU's bit is one load.) */
    in1 = (*(volatile CPU_BITMAP *)&sysblk.waiting_mask & regs->cpubit) != 0;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    tod1 = r->waittod;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    waited = r->waittime;
    HCPUMF_READ_BITS(b, r);
    HCPUMF_SET_BITS(psw, b);
    HCPUMF_PEEK_STATE(p, psw, regs, r);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    tod2 = r->waittod;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    in2 = (*(volatile CPU_BITMAP *)&sysblk.waiting_mask & regs->cpubit) != 0;
    p->waiting = in1 && in2 && tod1 != 0 && tod1 == tod2 && WAITSTATE(psw);
    if (p->waiting) {
        U64 now = host_tod();
        if (now > tod1)
            waited += now - tod1;
    }
    p->waited_ns = HCPUMF_HOST_TOD_NS(waited);
    return r->cpustate == CPUSTATE_STARTED;
}
