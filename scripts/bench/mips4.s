# Benchmark workload on N CPUs at once (N at 0x3F10, 4 if 0): every CPU runs
# scripts/bench/mips.s's loop for 3 s
# by the TOD clock, after setting up its own sample-data blocks (mode 2: basic sampling at
# the interval at 0x3F08 into 4 SDBTs of 511 blocks of its own) or counters (mode 1).
# Results of CPU a at 0x3000 + a * 0x40: +0 iterations, +8 elapsed TOD units, +0x10 cc.
# 0x3700 tickets, 0x370c CPUs done, 0x3780 STAP slots. CPU 0 ends the test when all are done.
        .include "lowcore.inc"
        .include "loop.inc"
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
        # This CPU's sample data: SDBTs at 0xF0000 + a * 0x4000, blocks from 0x1000000 +
        # a * 0x800000; cleared in every mode (first-touch page faults in every config).
        llilf %r3,0x1000000
        sllg  %r1,%r10,23
        agr   %r3,%r1
        lgr   %r9,%r3                      # first block
        CLEAR_SDBS
        lg    %r2,0xf00(%r13)              # mode
        cghi  %r2,1
        jne   nocount
        lcctl allsets-data(%r12)
        ipm   %r1
        st    %r1,0x10(%r11)
nocount: cghi %r2,2
        jne   go
        llilf %r3,0xF0000                  # this CPU's tables
        sllg  %r1,%r10,14
        agr   %r3,%r1
        lgr   %r4,%r9                      # next SDB
        SDBT_RING
        lghi  %r3,0x5000                   # request block of this CPU
        sllg  %r1,%r10,6
        agr   %r3,%r1
        mvc   0(64,%r3),req-data(%r12)
        mvc   8(8,%r3),0xf08(%r13)         # interval
        stg   %r14,16(%r3)                 # TEAR
        stg   %r9,24(%r3)                  # DEAR
        lsctl 0(%r3)
        ipm   %r1
        st    %r1,0x10(%r11)
        # This CPU's data: a page of its own at 0x80000 + address * 4096. (16 bytes apart, the
        # four CPUs' stores shared a cache line and a storage key, and the 4-CPU baseline
        # spent most of its threads' time on that contention, not on the loop.)
go:     stap  0x20(%r11)
        llgh  %r1,0x20(%r11)
        sllg  %r1,%r1,12
        llilf %r10,0x80000
        agr   %r10,%r1
        stck  0x30(%r11)
        lghi  %r9,0                        # iterations
        BATCHES_FOR 0x30(%r11), 0x38(%r11), dur-data(%r12)
        stg   %r9,0x00(%r11)
        stg   %r1,0x08(%r11)
        lghi  %r1,1
        laa   %r2,%r1,0x70c(%r13)          # one more CPU done
        lh    %r1,0x20(%r11)
        ltr   %r1,%r1
        jnz   idle
        l     %r3,0xf14(%r13)              # CPUs in the run
        ltr   %r3,%r3
        jnz   9f
        lghi  %r3,4
9:      l     %r2,0x70c(%r13)
        cr    %r2,%r3
        jl    9b
        DONE
idle:   lpswe idlepsw-data(%r12)
        .align 8
data:
allsets: .quad 0x00000000000F000F
dur:    .quad 0x2EE000000                  # 3 s in TOD units (3,000,000 us << 12)
idlepsw: .quad 0x0002000180000000, 0x1d1e
req:    .quad 0x4000000000000202, 0, 0, 0
        .quad 0, 0, 0, 0
