# The problem-state bit of basic-sampling data entries taken while the CPU switches state
# some million times a second (SA23-2260, "Basic-Sampling Data Entry": P is the PSW's
# problem-state bit "when the instruction was executing"). Problem-state code on the page at
# 0x10000 calls SVC 0; the SVC new PSW enters supervisor-state code on the page at 0x20000,
# which loads the problem-state PSW again, ROUNDS times. Every entry whose address is in the
# first page must have P = 1, in the second P = 0 (the test reads a HIS run's .SMP file).
        .include "lowcore.inc"
        .set ROUNDS, 6000000
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        mvc   0x1c0(16,%r0),svcpsw-0x1000(%r12)   # SVC new PSW -> the supervisor page
        llilf %r7,ROUNDS
        lpswe probpsw-0x1000(%r12)
        .align 8
svcpsw:  .quad 0x0000000180000000, 0x20000
probpsw: .quad 0x0001000180000000, 0x10000

        .org 0x10000
prob:   ahi   %r2,1                       # problem state
        ahi   %r2,1
        ahi   %r2,1
        svc   0

        .org 0x20000
sup:    ahi   %r3,1                       # supervisor state
        ahi   %r3,1
        brctg %r7,1f
        DONE
1:      lpswe probpsw-0x1000(%r12)
