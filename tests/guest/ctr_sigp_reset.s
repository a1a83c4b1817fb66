# NUMCPU 2: SIGNAL PROCESSOR CPU reset (order 0C) and initial CPU reset (order 0B) of
# CPU 1, sent by CPU 0, and what they do to CPU 1's counter facility (SA23-2260, "Local
# Counter-Set-State Control Register", Figure 2-2 and "Measurement Alert").
#
# CPU 1 (setup): enables and activates the basic, problem-state, crypto and extended sets,
# sets extended counter 128 to 0x1111 and crypto counter 64 to 0x2222, has the operator
# enables basic sampling (active, at the maximum interval), has the operator
# (DIAGNOSE 8: `hcpumf inject caca cpu=1`) make a counter-authorization-change alert pending
# while its external mask is off, then spins until CPU 0 resets it. CPU 0 then restarts it
# (SIGP restart, repeated while the reset is still under way) and CPU 1 checks its state
# with QCTRI, ECCTR and an external-mask-enabled spin. Round A is a CPU reset, round B an
# initial CPU reset; after round B CPU 1 enables the sets again and, as a control, has an
# alert injected with its external mask on. Before round A, CPU 0 tries an initial CPU
# reset from the problem state (privileged-operation exception, nothing reset).
#
#   0x3000 round A check, 0x3080 round B check (each: +0 QCTRI, +0x40 ECCTR 128, +0x48
#          ECCTR 64, +0x50 ECCTR 1, +0x58 ECCTR 1 after a loop, +0x60..0x63 their condition
#          codes (0xFF until stored), +0x68 external interruptions during the enabled spin)
#   0x3100 CPU 1 setups done, 0x3104 phase, 0x3108 CPU 1 checks done,
#   0x310C / 0x3110 SIGP CPU reset / initial CPU reset condition codes (IPM word)
#   0x3120 / 0x3128 setup A / B condition codes: LCCTL, SCCTR 128, SCCTR 64, LSCTL
#   0x3180 / 0x3200 QSI after round A / B (sampling enabled and active in the setups)
#   0x3140 after round B, enabled again: ECCTR 128, 0x3148 ECCTR 64, 0x3150/0x3151 ccs,
#          0x3158 external interruptions after the control injection
        .include "lowcore.inc"
        .macro CC off
        ipm   %r0
        srl   %r0,28
        stc   %r0,\off
        .endm
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lghi  %r1,1
        laa   %r8,%r1,0x1f0(%r13)           # a ticket: a STAP slot of this start's own
        llgfr %r8,%r8
        nill  %r8,15
        sllg  %r8,%r8,1
        la    %r8,0x1c0(%r8,%r13)
        stap  0(%r8)
        lh    %r10,0(%r8)
        ltr   %r10,%r10
        jnz   cpu1
# CPU 0: the operator of the test.
        mvc   0x60(4,%r13),ffs-0x1000(%r12)
        mvc   0xe0(4,%r13),ffs-0x1000(%r12)
        mvc   0x150(2,%r13),ffs-0x1000(%r12)
        lghi  %r3,1
1:      l     %r0,0x100(%r13)               # CPU 1 set up (round A)
        chi   %r0,1
        jl    1b
        # SIGP is privileged: from the problem state the initial CPU reset is not
        # performed (privileged-operation exception) and CPU 1 keeps its state.
        mvc   0x1c0(16),svcpsw-0x1000(%r12)
        lpswe prob-0x1000(%r12)
p0:     sigp  %r4,%r3,0x0b
        svc   0
        sigp  %r4,%r3,0x0c                  # CPU reset of CPU 1
        ipm   %r0
        st    %r0,0x10c(%r13)
        mvhi  0x104(%r13),1
        bras  %r14,restart1
2:      l     %r0,0x100(%r13)               # CPU 1 checked round A and set up round B
        chi   %r0,2
        jl    2b
        sigp  %r4,%r3,0x0b                  # initial CPU reset of CPU 1
        ipm   %r0
        st    %r0,0x110(%r13)
        mvhi  0x104(%r13),3
        bras  %r14,restart1
3:      l     %r0,0x108(%r13)               # CPU 1 checked round B
        chi   %r0,2
        jl    3b
        DONE
svcret: ni    0x141,0xfe                    # back to the supervisor state after SVC
        lpswe 0x140
restart1:
        sigp  %r4,%r3,0x06                  # restart CPU 1: cc 2 while the reset is under way
        ipm   %r0
        srl   %r0,28
        chi   %r0,2
        je    restart1
        br    %r14

# CPU 1.
cpu1:   l     %r0,0x104(%r13)
        chi   %r0,1
        je    checka
        chi   %r0,3
        je    checkb
        la    %r9,0x120(%r13)
setup:  lcctl allsets-0x1000(%r12)
        CC    0(%r9)
        lghi  %r2,128
        lghi  %r6,0x1111
        scctr %r6,%r2
        CC    1(%r9)
        lghi  %r2,64
        lghi  %r6,0x2222
        scctr %r6,%r2
        CC    2(%r9)
        # Basic sampling enabled and active at the maximum interval (no sample falls due).
        qsi   0x300(%r13)
        mvc   lsreq+8-0x1000(8,%r12),0x310(%r13)
        lsctl lsreq-0x1000(%r12)
        CC    3(%r9)
        bras  %r14,inject
        lghi  %r1,1
        laa   %r0,%r1,0x100(%r13)           # set up
4:      j     4b                            # until CPU 0 resets this CPU

checka: la    %r9,0(%r13)
        bras  %r14,check
        lghi  %r1,1
        laa   %r0,%r1,0x108(%r13)           # checked
        la    %r9,0x128(%r13)
        j     setup                         # round B

checkb: la    %r9,0x80(%r13)
        bras  %r14,check
        # Enabled again after the initial CPU reset: the counters start from zero.
        lcctl enable-0x1000(%r12)
        lghi  %r2,128
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x150(%r13)
        stg   %r4,0x140(%r13)
        lghi  %r2,64
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x151(%r13)
        stg   %r4,0x148(%r13)
        # Control: an alert recognized while the external mask is on is presented.
        lg    %r5,0x3bf8
        stosm 0x170(%r13),0x01
        bras  %r14,inject
        llilf %r6,300000000                 # ended by the interruption
5:      lg    %r0,0x3bf8
        cgr   %r0,%r5
        jne   6f
        brctg %r6,5b
6:      stnsm 0x170(%r13),0xfe
        lg    %r0,0x3bf8
        sgr   %r0,%r5
        stg   %r0,0x158(%r13)
        lghi  %r1,1
        laa   %r0,%r1,0x108(%r13)           # checked
        lpswe stop1-0x1000(%r12)

# The state after a reset, into the area at R9 (QSI at R9 + 0x180).
check:  qctri 0(%r9)
        qsi   0x180(%r9)
        lghi  %r2,128
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x60(%r9)
        stg   %r4,0x40(%r9)
        lghi  %r2,64
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x61(%r9)
        stg   %r4,0x48(%r9)
        lghi  %r2,1
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x62(%r9)
        stg   %r4,0x50(%r9)
        llilf %r6,100000
7:      brctg %r6,7b
        lghi  %r4,-1
        ecctr %r4,%r2
        CC    0x63(%r9)
        stg   %r4,0x58(%r9)
        # Is an alert still pending? Enable for it (CR0 bit 58, PSW external mask).
        lg    %r5,0x3bf8
        stctg %c0,%c0,0x78(%r9)
        oi    0x7f(%r9),0x20
        lctlg %c0,%c0,0x78(%r9)
        stosm 0x70(%r9),0x01
        llilf %r6,3000000                   # well under 1 s (four instructions a turn)
8:      lg    %r0,0x3bf8
        cgr   %r0,%r5
        jne   9f
        brctg %r6,8b
9:      stnsm 0x70(%r9),0xfe
        lg    %r0,0x3bf8
        sgr   %r0,%r5
        stg   %r0,0x68(%r9)
        br    %r14

# DIAGNOSE 8: the operator command `hcpumf inject caca cpu=1` (EBCDIC).
inject: larl  %r2,cmd
        lghi  %r3,cmdend-cmd
        .insn rs,0x83000000,%r2,%r3,8
        br    %r14

        .align 8
lsreq:  .quad 0x4000000000000202, 0, 0x10000, 0x20000     # H, E_s, C_s; interval from QSI
        .quad 0, 0, 0, 0
allsets: .quad 0x00000000000F000F
enable: .quad 0x00000000000F0000
svcpsw: .quad 0x0000000180000000, svcret
prob:   .quad 0x0001000180000000, p0
stop1:  .quad 0x0002000180000000, 0x1d1e
ffs:    .fill 4,1,0xff
cmd:    .byte 0x88, 0x83, 0x97, 0xa4, 0x94, 0x86, 0x40, 0x89, 0x95, 0x91, 0x85, 0x83
        .byte 0xa3, 0x40, 0x83, 0x81, 0x83, 0x81, 0x40, 0x83, 0x97, 0xa4, 0x7e, 0xf1
cmdend:
