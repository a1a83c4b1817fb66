# S/370 (MVS 3.8J's architecture): QCTRI and ECCTR from an S/370 EC-mode supervisor.
# Without `archs=all` the instructions do not exist there (operation exception); with it
# they work as in z/Architecture.
#   0x3000 QCTRI block, 0x3040 ECCTR R1 (low word of the instruction counter), 0x3044 IPM,
#   0x800.. program-interruption codes, a fullword each (count at 0x7FC)
        .text
        .org 0
        .long 0x00080000, start               # restart new PSW (EC mode)
        .org 0x28
        .long 0, 0                            # program old PSW
        .org 0x68
        .long 0x00080000, pgmchk              # program new PSW
        .org 0x400
pgmchk: stm   %r0,%r15,0x600
        l     %r1,0x7fc(%r0)
        lr    %r2,%r1
        sll   %r2,2
        lh    %r3,0x8e(%r0)                   # program-interruption code (EC mode)
        st    %r3,0x800(%r2)
        la    %r1,1(%r1)
        st    %r1,0x7fc(%r0)
        lm    %r0,%r15,0x600
        lpsw  0x28                            # resume after the instruction
        .align 8
waitpsw: .long 0x000a0000, 0
        .org 0x1000
start:  la    %r12,0x800
        la    %r12,0x800(%r12)                # R12 = 0x1000 (code base)
        la    %r13,0x800
        la    %r13,0x800(%r13)
        la    %r13,0x800(%r13)
        la    %r13,0x800(%r13)
        la    %r13,0x800(%r13)
        la    %r13,0x800(%r13)                # R13 = 0x3000
        qctri 0(%r13)
        lcctl ctls-0x1000(%r12)
        sr    %r4,%r4
        la    %r2,1
        ecctr %r4,%r2
        ipm   %r5
        st    %r4,0x40(%r13)
        st    %r5,0x44(%r13)
        lpsw  waitpsw
        .align 8
ctls:   .long 0, 0x00020002
