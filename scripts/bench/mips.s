# Benchmark workload: a mix of loads, stores, arithmetic and branches, run for a fixed
# time measured with the TOD clock; the number of loop iterations per second is the figure.
# Mode (set by scripts/bench.sh at 0x3F00): 0 nothing, 1 all counter sets active,
# 2 basic sampling at the interval at 0x3F08 into 2044 4-KB SDBs (cleared first in every
# mode).
# Results: 0x3000 iterations, 0x3008 elapsed TOD units, 0x3010 LCCTL/LSCTL cc.
        .include "lowcore.inc"
        .include "loop.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        llilf %r3,0x100000                    # the SDB area, cleared in every mode
        CLEAR_SDBS
        lg    %r2,0xf00(%r13)                 # mode
        cghi  %r2,1
        jne   nocount
        lcctl allsets-0x1000(%r12)
        ipm   %r1
        st    %r1,0x10(%r13)
nocount: cghi %r2,2
        jne   go
        RING_AND_INTERVAL                     # 4 SDBTs at 0xF0000 with 511 SDBs each
        lsctl req-0x1000(%r12)
        ipm   %r1
        st    %r1,0x10(%r13)
go:     stck  0x40(%r13)
        lghi  %r9,0                           # iterations
        larl  %r10,data
        BATCHES_FOR 0x40(%r13), 0x48(%r13), dur-0x1000(%r12)
        stg   %r9,0x00(%r13)
        stg   %r1,0x08(%r13)
        DONE
        .align 8
allsets: .quad 0x00000000000F000F
dur:    .quad 0x2EE000000                     # 3 s in TOD units (3,000,000 us << 12)
req:    .quad 0x4000000000000202, 0, 0xF0000, 0x100000
        .quad 0, 0, 0, 0
data:   .quad 5, 0
