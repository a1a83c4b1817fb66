# rmmod and ldmod while 4 CPUs sample at the maximum rate. Every CPU enables the basic
# counter set and activates basic sampling at the QSI minimum interval into 200 fresh 4-KB
# blocks, then spins, looking with QSI whether its sampling is still enabled. The operator
# unloads and reloads the plugin meanwhile: a reload starts from the state of an initial CPU
# reset (sampling and counter sets disabled, TEAR and DEAR zero). A CPU that sees that
# starts over as a program would: counters again, sampling again into new blocks, spins
# until its cycle count has grown by TARGET cycles, deactivates and counts what was stored.
#
# Results of CPU a at 0x3000 + a * 0x40:
#   +0x00 entries stored after the reload   +0x08 overflow counts   +0x10 cycles while
#   sampling   +0x18 interval (cycles)   +0x20 1 when the reload was seen   +0x28 QSI DEAR
#   when the reload was seen (0 after an initial CPU reset)
# 0x3700 tickets, 0x370c CPUs done, 0x3780 STAP slots. Scratch of CPU a at 0x5000 + a *
# 0x100: QSI at +0, request block at +0x40, QSI while spinning at +0x80, SPX operand at
# +0xf0. Prefix area of CPU a: 0x100000 + a * 0x2000.
# Sample data: 0x1000000 + a * 0x400000 (before the reload), + 0x200000 (after).
        .include "lowcore.inc"
        .set  NSDB, 200
        .set  TARGET, 1100000000
start:  lghi  %r13,0x3000
        larl  %r12,data
        lghi  %r1,1
        laa   %r8,%r1,0x700(%r13)          # ticket: a private STAP slot
        sllg  %r8,%r8,3
        la    %r8,0x780(%r8,%r13)
        stap  0(%r8)
        llgh  %r10,0(%r8)                  # CPU address
        sllg  %r11,%r10,6
        la    %r11,0(%r11,%r13)            # results
        lghi  %r9,0x5000
        sllg  %r1,%r10,8
        agr   %r9,%r1                      # scratch
        # A prefix area of its own: two CPUs taking the operation exception of the unloaded
        # QSI at once would otherwise resume with each other's registers.
        OWN_PREFIX 0x100000, %r10, 0xf0(%r9)
        llilf %r6,0x1000000                # sample data before the reload
        sllg  %r1,%r10,22
        agr   %r6,%r1
        brasl %r14,activate
        # Spin until QSI says the sampling function is no longer enabled (the reload), at
        # most about 10^10 iterations.
        llihl %r5,2
1:      llilf %r1,10000
2:      brctg %r1,2b
        qsi   0x80(%r9)
        tm    0x82(%r9),0x02               # Es
        jz    reloaded
        brctg %r5,1b
        j     counted                      # never reloaded: the test says so
reloaded:
        mvi   0x27(%r11),1
        mvc   0x28(8,%r11),0xa0(%r9)       # DEAR as QSI shows it now
        agfi  %r6,0x200000                 # new sample data
        brasl %r14,activate
        lghi  %r4,0
        ecctr %r14,%r4                     # cycles at activation
3:      llilf %r1,10000
4:      brctg %r1,4b
        ecctr %r2,%r4
        sgr   %r2,%r14
        clgfi %r2,TARGET
        jl    3b
        ni    0x47(%r9),0xfc               # Cs = 0: inactive
        lsctl 0x40(%r9)
        ecctr %r2,%r4
        sgr   %r2,%r14
        stg   %r2,0x10(%r11)               # cycles while sampling
        lsctl zero-data(%r12)
        # Count the entries and the overflow counts block by block.
        lgr   %r3,%r6
        agfi  %r3,0x1000                   # block
        lghi  %r1,NSDB
5:      lgr   %r2,%r3                      # entry
6:      lgr   %r0,%r3
        agfi  %r0,0xfc0
        clgr  %r2,%r0
        jnl   8f
        lh    %r0,0(%r2)
        ltr   %r0,%r0
        jz    8f
        lg    %r0,0(%r11)
        aghi  %r0,1
        stg   %r0,0(%r11)
        aghi  %r2,32
        j     6b
8:      lg    %r0,0x08(%r11)
        alg   %r0,0xfc8(%r3)               # overflow count
        stg   %r0,0x08(%r11)
        agfi  %r3,0x1000
        brctg %r1,5b
counted:
        lghi  %r1,1
        laa   %r2,%r1,0x70c(%r13)          # one more CPU done
        ltr   %r10,%r10
        jnz   idle
9:      l     %r2,0x70c(%r13)
        chi   %r2,4
        jl    9b
        spx   zero-data(%r12)              # back to prefix 0 for the harness
        DONE
idle:   lpswe idlepsw-data(%r12)

# Enable and activate the basic counter set, build a table of NSDB fresh blocks at R6 (table
# at +0, blocks from +0x1000) and activate basic sampling at the QSI minimum interval.
activate:
        lcctl ctls-data(%r12)
        qsi   0(%r9)
        lgr   %r2,%r6
        agfi  %r2,0x1000
        lghi  %r3,NSDB
        lgr   %r5,%r6
21:     stg   %r2,0(%r5)
        lghi  %r0,16                       # touch the block (host page faults now, not
22:     xc    0(256,%r2),0(%r2)            # while sampling)
        la    %r2,256(%r2)
        brctg %r0,22b
        aghi  %r5,8
        brctg %r3,21b
        lgr   %r2,%r6
        oill  %r2,1
        stg   %r2,0(%r5)
        xc    0x40(64,%r9),0x40(%r9)       # request block
        mvc   0x40(8,%r9),req-data(%r12)
        lg    %r1,8(%r9)                   # QSI minimum interval
        stg   %r1,0x48(%r9)
        stg   %r1,0x18(%r11)
        stg   %r6,0x50(%r9)                # TEAR: the table
        lgr   %r2,%r6
        agfi  %r2,0x1000
        stg   %r2,0x58(%r9)                # DEAR: the first block
        lsctl 0x40(%r9)
        br    %r14

        .align 8
data:
ctls:   .quad 0x0000000000020002
idlepsw: .quad 0x0002000180000000, 0x1d1e
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
req:    .quad 0x4000000000000202
