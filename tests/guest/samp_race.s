# LOAD SAMPLING CONTROLS against samples stored from outside the running CPU (SA23-2260,
# "State of Sampling Function": in the disabled state no sample data is stored; the sampler
# thread stores most basic entries while the CPU runs on, `host::remote`). 3,000 times:
# basic sampling at the QSI minimum interval into one block, a spin of a few intervals (its
# length varied over about one interval from cycle to cycle), an LSCTL that disables sampling (a sample may be being stored from outside right then), a
# count of the entries in the block's first 1 KB (where this cycle's entries went) at once,
# a spin of a few intervals and the count again: no entry stored after the LSCTL.
#   0x3000 cycles with a store after the disabling LSCTL   0x3008 entries stored in all
#   0x3010 cycles run
        .include "lowcore.inc"
        .set  CYCLES, 3000
start:  lghi  %r13,0x3000
        larl  %r12,data
        qsi   0x100(%r13)
        llilf %r6,0x100000                   # the SDBT
        lgr   %r2,%r6
        agfi  %r2,0x1000                     # its one block
        stg   %r2,0(%r6)
        lgr   %r3,%r6
        oill  %r3,1
        stg   %r3,8(%r6)                     # table link back to the same table
        mvc   0x140(64,%r13),req-data(%r12)
        mvc   0x148(8,%r13),0x108(%r13)      # QSI minimum interval
        stg   %r6,0x150(%r13)                # TEAR
        stg   %r2,0x158(%r13)                # DEAR
        llilf %r10,CYCLES
cycle:  xc    0(256,%r2),0(%r2)              # this cycle's entries go here
        xc    256(256,%r2),256(%r2)
        xc    512(256,%r2),512(%r2)
        xc    768(256,%r2),768(%r2)
        lsctl 0x140(%r13)
        lgr   %r7,%r10                       # 36,000-44,191 turns: over the cycles the
        nill  %r7,0x1fff                     # disabling LSCTL falls at every point of
        agfi  %r7,36000                      # the sampling interval
1:      brctg %r7,1b
        lsctl zero-data(%r12)                # disabled: nothing is stored from now on
        bras  %r14,count                     # the cycle's entries, at once
        lgr   %r5,%r0
        llilf %r7,30000
5:      brctg %r7,5b
        bras  %r14,count                     # and a few intervals later: no more
        lg    %r1,0x08(%r13)
        agr   %r1,%r5
        stg   %r1,0x08(%r13)
        cgr   %r0,%r5
        je    8f
        lg    %r1,0x00(%r13)
        aghi  %r1,1
        stg   %r1,0x00(%r13)
8:      lg    %r1,0x10(%r13)
        aghi  %r1,1
        stg   %r1,0x10(%r13)
        brctg %r10,cycle
        DONE

# R0 = entries (nonzero format field) in the block's first 1 KB; uses R3, R4.
count:  lghi  %r0,0
        lgr   %r3,%r2
        lghi  %r4,32
1:      lh    %r1,0(%r3)
        ltr   %r1,%r1
        jz    2f
        aghi  %r0,1
2:      la    %r3,32(%r3)
        brctg %r4,1b
        br    %r14

        .align 8
data:
ctls:   .quad 0
req:    .quad 0x4000000000000202, 0, 0, 0, 0, 0, 0, 0
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
