# The stopped state pauses sampling (SA23-2260, State of Sampling Function: "When the CPU
# enters the stopped state from the operating state, active sampling functions are stopped.
# When the CPU enters the operating state from the stopped state, sampling functions resume
# the states they were in when they were last stopped"). Combined basic + diagnostic sampling
# at 10 x the QSI minimum interval into 256 blocks; the guest spins, executes an invalid
# instruction (the automatic operator then runs `stop`, `pause 1`, `start` on this CPU), and
# spins on until 2.5 s of TOD have passed since then. It then deactivates sampling and walks
# the entries: the TOD (DSDE +32) and CPU time (DSDE +24) of successive samples.
#   0x3000 entries stored   0x3008 overflow counts   0x3010 cycles while sampling
#   0x3018 interval   0x3020 largest TOD step between successive samples (TOD units)
#   0x3028 CPU-time step (ns) across that largest TOD step   0x3030 samples after it
#   0x3038 TOD at the invalid instruction   0x3040 TOD at the end   0x3048 QSI state at
#   the end before deactivation   0x3050 TOD of the sample before the largest step
        .include "lowcore.inc"
        .set  NSDB, 256
start:  lghi  %r13,0x3000
        larl  %r12,data
        lcctl ctls-data(%r12)
        qsi   0x100(%r13)
        llilf %r6,0x100000                   # SDBT, blocks from 0x101000
        lgr   %r2,%r6
        agfi  %r2,0x1000
        lghi  %r3,NSDB
        lgr   %r5,%r6
1:      stg   %r2,0(%r5)
        aghi  %r5,8
        agfi  %r2,0x1000
        brctg %r3,1b
        lgr   %r2,%r6
        oill  %r2,1
        stg   %r2,0(%r5)
        mvc   0x140(64,%r13),req-data(%r12)
        lg    %r1,0x108(%r13)                # QSI minimum interval x 10
        mghi  %r1,10
        stg   %r1,0x148(%r13)
        stg   %r1,0x18(%r13)
        stg   %r6,0x150(%r13)
        lgr   %r2,%r6
        agfi  %r2,0x1000
        stg   %r2,0x158(%r13)
        lghi  %r4,0
        ecctr %r9,%r4
        lsctl 0x140(%r13)
        llilf %r7,20000000                   # ~0.1 s before the stop
2:      brctg %r7,2b
        stck  0x38(%r13)
        .short 0                             # operation exception: the operator stops us
        lg    %r8,0x38(%r13)
        llihf %r1,0x2                        # 2.5 s of TOD: 2,500,000 us << 12
        oilf  %r1,0x625a0000
        agr   %r8,%r1
3:      llilf %r7,100000
4:      brctg %r7,4b
        stck  0x40(%r13)
        clg   %r8,0x40(%r13)
        jh    3b
        qsi   0x1c0(%r13)
        mvc   0x48(4,%r13),0x1c0(%r13)
        ni    0x147(%r13),0xfc               # deactivate
        lsctl 0x140(%r13)
        ecctr %r1,%r4
        sgr   %r1,%r9
        stg   %r1,0x10(%r13)
        lsctl zero-data(%r12)
        # Walk: 42 combined entries of 96 bytes per block.
        lgr   %r3,%r6
        agfi  %r3,0x1000
        lghi  %r1,NSDB
        lghi  %r10,0                         # previous TOD (0: none)
        lghi  %r11,0                         # previous CPU ns
5:      lgr   %r2,%r3
        lghi  %r5,42
6:      lh    %r0,0(%r2)
        ltr   %r0,%r0
        jz    8f
        lg    %r0,0(%r13)
        aghi  %r0,1
        stg   %r0,0(%r13)
        lg    %r0,0x30(%r13)                 # samples after the largest step so far
        aghi  %r0,1
        stg   %r0,0x30(%r13)
        lg    %r14,64(%r2)                   # TOD
        lg    %r15,56(%r2)                   # CPU ns
        ltgr  %r10,%r10
        jz    7f
        lgr   %r0,%r14
        sgr   %r0,%r10
        clg   %r0,0x20(%r13)
        jnh   7f
        stg   %r0,0x20(%r13)                 # a new largest TOD step
        stg   %r10,0x50(%r13)
        lgr   %r0,%r15
        sgr   %r0,%r11
        stg   %r0,0x28(%r13)
        mvghi 0x30(%r13),1
7:      lgr   %r10,%r14
        lgr   %r11,%r15
        la    %r2,96(%r2)
        brctg %r5,6b
8:      lg    %r0,0x08(%r13)
        alg   %r0,0xfc8(%r3)
        stg   %r0,0x08(%r13)
        agfi  %r3,0x1000
        brctg %r1,5b
        DONE

        .align 8
data:
ctls:   .quad 0x0000000000020002
req:    .quad 0x4000000000000303, 0, 0, 0, 0, 0, 0, 0
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
