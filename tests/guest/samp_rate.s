# Sampling rate on 4 CPUs at once (SA23-2260, Sampling Interval Register: "the average
# number of CPU cycles within each sampling interval"). Every CPU runs the same phases, all
# CPUs entering each phase together (a barrier):
#   0: the QSI minimum interval (the maximum rate), combined basic + diagnostic entries;
#   1: 4 x the minimum interval, basic entries;
#   2: 2 x the minimum interval, basic entries.
# In each phase a CPU activates sampling into 200 fresh 4-KB blocks (A = 0, never full;
# cleared first, so that the host's first-touch page faults do not fall into the sampling),
# spins until its basic-set cycle count has grown by the phase's target, deactivates, and
# then counts what was stored: valid entries, the sum of the overflow counts, and, for the
# combined entries of phase 0, how the diagnostic entries' instruction counts and CPU times
# (this plugin's DSDE, format 8001: +16 instructions, +24 CPU ns) step from one sample to
# the next.
#
# Results of CPU a, phase p at 0x3000 + a * 0x180 + p * 0x80:
#   +0x00 entries stored   +0x08 overflow counts   +0x10 cycles while sampling
#   +0x18 interval (cycles)   +0x20 duplicate samples (same instruction count as the
#   previous one)   +0x28 steps shorter than a quarter interval   +0x30 steps longer than
#   1.5 intervals   +0x38 longest step (CPU ns)   +0x40 TEAR, +0x48 DEAR when deactivated
#   +0x50 instructions while sampling
# 0x3700 tickets, 0x3708 barrier, 0x370c CPUs done, 0x3780 STAP slots.
# Per-CPU scratch at 0x5000 + a * 0x100: QSI at +0 and +0x80, request block at +0x40, walk state at
# +0xc0 (previous instruction count, previous CPU ns, have-previous), interval in ns at +0xd8,
# a quarter at +0xe0, 1.5 x at +0xe8.
# Sample data: 0x1000000 + a * 0x400000 + p * 0x100000 (table at +0, blocks from +0x1000).
        .include "lowcore.inc"
        .set  NSDB, 200
start:  lghi  %r13,0x3000
        larl  %r12,data
        lghi  %r1,1
        laa   %r8,%r1,0x700(%r13)          # ticket: a private STAP slot
        sllg  %r8,%r8,3
        la    %r8,0x780(%r8,%r13)
        stap  0(%r8)
        llgh  %r10,0(%r8)                  # CPU address
        mghi  %r10,0x180
        la    %r11,0(%r10,%r13)            # results
        llgh  %r10,0(%r8)
        lghi  %r9,0x5000
        sllg  %r1,%r10,8
        agr   %r9,%r1                      # scratch
        lcctl ctls-data(%r12)
        qsi   0(%r9)
        larl  %r7,phases
        lghi  %r8,0
phase:  lg    %r0,0(%r7)
        ltgr  %r0,%r0
        jz    finished
        lghi  %r1,1                        # barrier: all 4 CPUs reach this phase
        laa   %r2,%r1,0x708(%r13)
        lgr   %r3,%r8
        aghi  %r3,1
        sll   %r3,2
1:      l     %r2,0x708(%r13)
        cr    %r2,%r3
        jl    1b
        llilf %r6,0x1000000                # sample data of this CPU and phase
        sllg  %r1,%r10,22
        agr   %r6,%r1
        sllg  %r1,%r8,20
        agr   %r6,%r1
        lgr   %r2,%r6                      # SDBT: NSDB block links and a link back
        agfi  %r2,0x1000
        lghi  %r3,NSDB
        lgr   %r5,%r6
2:      stg   %r2,0(%r5)
        lghi  %r0,16                       # touch the block (host page faults now, not
21:     xc    0(256,%r2),0(%r2)            # while sampling)
        la    %r2,256(%r2)
        brctg %r0,21b
        aghi  %r5,8
        brctg %r3,2b
        lgr   %r2,%r6
        oill  %r2,1
        stg   %r2,0(%r5)
        sllg  %r5,%r8,7                    # this phase's record
        agr   %r5,%r11
        xc    0(128,%r5),0(%r5)
        xc    0x40(64,%r9),0x40(%r9)       # request block
        mvc   0x40(8,%r9),8(%r7)
        lg    %r1,8(%r9)                   # QSI minimum interval
        msg   %r1,0(%r7)                   # x the phase's factor
        stg   %r1,0x48(%r9)
        stg   %r1,0x18(%r5)
        stg   %r6,0x50(%r9)                # TEAR: the table
        lgr   %r2,%r6
        agfi  %r2,0x1000
        stg   %r2,0x58(%r9)                # DEAR: the first block
        mghi  %r1,1000                     # interval in CPU ns = cycles * 1000 / speed
        lgr   %r15,%r1
        lghi  %r14,0
        llgf  %r1,0x2c(%r9)
        dlgr  %r14,%r1
        stg   %r15,0xd8(%r9)
        srlg  %r1,%r15,2
        stg   %r1,0xe0(%r9)                # a quarter interval
        srlg  %r1,%r15,1
        agr   %r1,%r15
        stg   %r1,0xe8(%r9)                # 1.5 intervals
        lg    %r3,16(%r7)                  # target cycles
        lghi  %r4,1
        ecctr %r0,%r4                      # instructions at activation
        stg   %r0,0x50(%r5)
        lghi  %r4,0
        ecctr %r14,%r4                     # cycles at activation
        lsctl 0x40(%r9)
3:      llilf %r1,10000
4:      brctg %r1,4b
        ecctr %r2,%r4
        sgr   %r2,%r14
        clgr  %r2,%r3
        jl    3b
        ni    0x47(%r9),0xfc               # Cs = Cd = 0: inactive
        lsctl 0x40(%r9)
        ecctr %r2,%r4
        sgr   %r2,%r14
        stg   %r2,0x10(%r5)                # cycles while sampling
        lghi  %r4,1
        ecctr %r0,%r4
        sg    %r0,0x50(%r5)
        stg   %r0,0x50(%r5)                # instructions while sampling
        lghi  %r4,0
        qsi   0x80(%r9)
        mvc   0x40(16,%r5),0x98(%r9)       # TEAR, DEAR
        lsctl zero-data(%r12)
        # Count the entries block by block.
        xc    0xc0(24,%r9),0xc0(%r9)
        lgr   %r3,%r6
        agfi  %r3,0x1000                   # block
        lghi  %r1,NSDB
5:      lgr   %r2,%r3                      # entry
6:      lgr   %r0,%r2
        ag    %r0,24(%r7)                  # its end
        lgr   %r14,%r3
        agfi  %r14,0xfc0
        clgr  %r0,%r14
        jh    8f
        lh    %r0,0(%r2)
        ltr   %r0,%r0
        jz    8f
        lg    %r0,0(%r5)
        aghi  %r0,1
        stg   %r0,0(%r5)
        cli   31(%r7),96                   # combined entries: the steps
        jne   7f
        lg    %r0,48(%r2)                  # instructions
        lg    %r14,56(%r2)                 # CPU ns
        cli   0xd7(%r9),0
        je    65f
        clg   %r0,0xc0(%r9)
        jne   61f
        lg    %r15,0x20(%r5)
        aghi  %r15,1
        stg   %r15,0x20(%r5)
61:     lgr   %r15,%r14
        sg    %r15,0xc8(%r9)               # step in CPU ns
        clg   %r15,0xe0(%r9)
        jnl   62f
        lg    %r4,0x28(%r5)
        aghi  %r4,1
        stg   %r4,0x28(%r5)
62:     clg   %r15,0xe8(%r9)
        jnh   63f
        lg    %r4,0x30(%r5)
        aghi  %r4,1
        stg   %r4,0x30(%r5)
63:     clg   %r15,0x38(%r5)
        jnh   65f
        stg   %r15,0x38(%r5)
65:     stg   %r0,0xc0(%r9)
        stg   %r14,0xc8(%r9)
        mvi   0xd7(%r9),1
7:      ag    %r2,24(%r7)
        j     6b
8:      lg    %r0,0x08(%r5)
        alg   %r0,0xfc8(%r3)               # overflow count
        stg   %r0,0x08(%r5)
        agfi  %r3,0x1000
        brctg %r1,5b
        aghi  %r8,1
        aghi  %r7,32
        j     phase
finished:
        lghi  %r1,1
        laa   %r2,%r1,0x70c(%r13)          # one more CPU done
        ltr   %r10,%r10
        jnz   idle
9:      l     %r2,0x70c(%r13)
        chi   %r2,4
        jl    9b
        DONE
idle:   lpswe idlepsw-data(%r12)

        .align 8
data:
ctls:   .quad 0x0000000000020002
idlepsw: .quad 0x0002000180000000, 0x1d1e
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
        # factor of the minimum interval, LSCTL word 0, target cycles, entry size
phases: .quad 1, 0x4000000000000303, 1101000000, 96
        .quad 4, 0x4000000000000202, 1761600000, 32
        .quad 2, 0x4000000000000202, 880800000, 32
        .quad 0
