# Benchmark workload with the sampling cost measured inside one run: scripts/bench/mips.s's
# loop, run for 6 s by the TOD clock in phases of about 40 ms that alternate between
# basic sampling enabled but inactive (A) and active (B) at the interval at 0x3F08, into
# 2044 4-KB SDBs in a ring. A host that slows down for a while slows both kinds of phase
# alike, so the ratio of the two rates is far steadier than one of separate runs.
# Each activation resumes where sampling stopped (QSI's TEAR and DEAR into the request, as
# Linux does), so the blocks fill as in one long run; the LSCTL and QSI are outside the
# timed stretches.
# Results: 0x3000 A iterations, 0x3008 A TOD units, 0x3010 B iterations, 0x3018 B TOD
# units, 0x3020 cc of the last LSCTL, 0x3028 phases, 0x3030 A cycles, 0x3038 B cycles (the
# basic counter set's cycle count: the CPU thread's host CPU time, read with ECCTR at each
# phase's ends); each of the first 160 phases' iterations, TOD units and cycles (A phases
# even, B odd) at 0x8000 + 32 * phase, for the median of the phase pairs' ratios, which a
# host's stop of the CPU thread in one phase of a pair does not move. Mode at 0x3F00, the
# sum of: 2 the B phases sample as above (else they are inactive too), 1 the basic counter
# set counts (else the cycle figures stay 0), 4 all counter sets are active in the B phases
# and only enabled in the A phases (not with 1).
        .include "lowcore.inc"
        .include "loop.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        llilf %r3,0x100000                    # the SDB area
        CLEAR_SDBS
        RING_AND_INTERVAL                     # 4 SDBTs at 0xF0000 with 511 SDBs each
        lsctl req-0x1000(%r12)                # active: disabled -> inactive would not load
                                              # TEAR and DEAR (SA23-2260 Figure 2-12)
        lg    %r7,0xf00(%r13)                 # mode
        tmll  %r7,1
        jz    nocount
        lcctl basic-0x1000(%r12)              # the cycle count: the CPU thread's time
nocount:
        xc    0(0x40,%r13),0(%r13)
        lghi  %r4,0                           # counter 0: cycle count (basic set)
        lghi  %r11,0                          # phase kind: 0 A, 1 B
        larl  %r10,data
        stck  0x40(%r13)                      # start of the run
phase:  tmll  %r7,4                           # counters: all sets active in B phases,
        jz    psamp                           # enabled but inactive in A phases
        larl  %r1,ctroff
        ltgr  %r11,%r11
        jz    pc
        larl  %r1,ctron
pc:     lcctl 0(%r1)
psamp:  ltgr  %r11,%r11
        jz    pa
        tmll  %r7,2                           # B phases inactive too: the method's own
        jz    pa                              # noise floor
        qsi   0x100(%r13)                     # B: resume at the current TEAR and DEAR
        mvc   req+16-0x1000(16,%r12),0x118(%r13)
        mvc   req+6-0x1000(2,%r12),act-0x1000(%r12)
        j     pl
pa:     mvc   req+6-0x1000(2,%r12),inact-0x1000(%r12)
pl:     lsctl req-0x1000(%r12)
        ipm   %r1
        st    %r1,0x20(%r13)
        lghi  %r9,0                           # iterations in this phase
        ecctr %r5,%r4
        stg   %r5,0x60(%r13)                  # the phase's first cycle count
        stck  0x50(%r13)                      # start of the phase
        BATCHES_FOR 0x50(%r13), 0x58(%r13), plen-0x1000(%r12)
        ecctr %r5,%r4
        sg    %r5,0x60(%r13)
        lg    %r2,0x28(%r13)                  # this phase's record, for the first 160
        clgfi %r2,160
        jnl   norec
        sllg  %r2,%r2,5
        agfi  %r2,0x8000
        stg   %r9,0(%r2)                      # its iterations, TOD units, cycles
        stg   %r1,8(%r2)
        stg   %r5,16(%r2)
norec:  sllg  %r2,%r11,3                      # its cycles to A or B
        la    %r2,0(%r2,%r13)
        ag    %r5,0x30(%r2)
        stg   %r5,0x30(%r2)
        sllg  %r2,%r11,4                      # account the phase to A or B
        la    %r2,0(%r2,%r13)
        ag    %r9,0(%r2)
        stg   %r9,0(%r2)
        ag    %r1,8(%r2)
        stg   %r1,8(%r2)
        lghi  %r1,1
        ag    %r1,0x28(%r13)
        stg   %r1,0x28(%r13)
        xilf  %r11,1
        lg    %r1,0x58(%r13)
        sg    %r1,0x40(%r13)
        clg   %r1,dur-0x1000(%r12)
        jl    phase
        ltgr  %r11,%r11                       # end after a B phase: as many of each
        jnz   phase
        mvc   req+6-0x1000(2,%r12),inact-0x1000(%r12)
        lsctl req-0x1000(%r12)
        DONE
        .align 8
dur:    .quad 0x5B8D80000                     # 6 s in TOD units (6,000,000 us << 12)
plen:   .quad 0x9C40000                       # 40 ms (40,000 us << 12)
act:    .short 0x0202                         # ES, CS
inact:  .short 0x0200                         # ES
        .align 8
basic:  .quad 0x0000000000020002              # basic counter set enabled and active
ctron:  .quad 0x00000000000F000F              # all four sets enabled and active
ctroff: .quad 0x00000000000F0000              # all four enabled, none active
req:    .quad 0x4000000000000202, 0, 0xF0000, 0x100000
        .quad 0, 0, 0, 0
data:   .quad 5, 0
