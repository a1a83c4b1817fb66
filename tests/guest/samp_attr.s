# Instruction-address attribution (SA23-2260, Basic-Sampling Data Entry: "Instruction
# Address: ... the instruction address of an instruction that the CPU was executing during
# the sampling cycle"). Basic sampling at the QSI minimum interval into 128 blocks while the
# guest alternates between two loops of the same instructions: `hot` for 300,000 iterations,
# `cold` for 100,000, until its basic-set cycle count has grown by 1.76 G (0.4 s of CPU time,
# ~8,000 samples). The cycles spent in each loop are measured with ECCTR around it. Then the
# entries are classified by instruction address.
#   0x3000 entries in hot   0x3008 entries in cold   0x3010 other entries
#   0x3018 overflow counts   0x3020 cycles in hot   0x3028 cycles in cold
#   0x3030 cycles while sampling   0x3038 interval   0x3040 sum of the entries' U
#   0x3048 instructions while sampling   0x3050 rounds of the two loops
        .include "lowcore.inc"
        .set  NSDB, 128
start:  lghi  %r13,0x3000
        larl  %r12,data
        lcctl ctls-data(%r12)
        qsi   0x100(%r13)
        llilf %r6,0x100000
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
        mvc   0x148(8,%r13),0x108(%r13)      # QSI minimum interval
        mvc   0x38(8,%r13),0x108(%r13)
        stg   %r6,0x150(%r13)
        lgr   %r2,%r6
        agfi  %r2,0x1000
        stg   %r2,0x158(%r13)
        lghi  %r4,0
        lghi  %r8,0                          # rounds (r8 is free until the scan)
        lghi  %r0,1
        ecctr %r1,%r0
        stg   %r1,0x48(%r13)
        ecctr %r9,%r4
        lsctl 0x140(%r13)
2:      ecctr %r10,%r4
        llilf %r7,300000
hot:    ahi   %r1,1
        ahi   %r2,1
        brctg %r7,hot
hotend: ecctr %r11,%r4
        llilf %r7,100000
cold:   ahi   %r1,1
        ahi   %r2,1
        brctg %r7,cold
coldend: ecctr %r3,%r4
        lgr   %r0,%r11
        sgr   %r0,%r10
        alg   %r0,0x20(%r13)
        stg   %r0,0x20(%r13)
        lgr   %r0,%r3
        sgr   %r0,%r11
        alg   %r0,0x28(%r13)
        stg   %r0,0x28(%r13)
        aghi  %r8,1
        sgr   %r3,%r9
        clgfi %r3,1761600000
        jl    2b
        ni    0x147(%r13),0xfc               # deactivate
        lsctl 0x140(%r13)
        ecctr %r1,%r4
        sgr   %r1,%r9
        stg   %r1,0x30(%r13)
        lghi  %r0,1
        ecctr %r1,%r0
        sg    %r1,0x48(%r13)
        stg   %r1,0x48(%r13)
        stg   %r8,0x50(%r13)
        lsctl zero-data(%r12)
        larl  %r7,hot
        larl  %r8,hotend
        larl  %r9,cold
        larl  %r10,coldend
        lgr   %r3,%r6
        agfi  %r3,0x1000
        lghi  %r1,NSDB
5:      lgr   %r2,%r3
        lghi  %r5,126
6:      lh    %r0,0(%r2)
        ltr   %r0,%r0
        jz    8f
        llgc  %r0,2(%r2)                     # U: bits 20-23
        nill  %r0,15
        alg   %r0,0x40(%r13)
        stg   %r0,0x40(%r13)
        lg    %r0,8(%r2)                     # instruction address
        lghi  %r11,0x10                      # other
        clgr  %r0,%r7
        jl    7f
        clgr  %r0,%r8
        jnl   61f
        lghi  %r11,0                         # hot
        j     7f
61:     clgr  %r0,%r9
        jl    7f
        clgr  %r0,%r10
        jnl   7f
        lghi  %r11,8                         # cold
7:      la    %r11,0(%r11,%r13)
        lg    %r0,0(%r11)
        aghi  %r0,1
        stg   %r0,0(%r11)
        la    %r2,32(%r2)
        brctg %r5,6b
8:      lg    %r0,0x18(%r13)
        alg   %r0,0xfc8(%r3)
        stg   %r0,0x18(%r13)
        agfi  %r3,0x1000
        brctg %r1,5b
        DONE

        .align 8
data:
ctls:   .quad 0x0000000000020002
req:    .quad 0x4000000000000202, 0, 0, 0, 0, 0, 0, 0
zero:   .quad 0, 0, 0, 0, 0, 0, 0, 0
