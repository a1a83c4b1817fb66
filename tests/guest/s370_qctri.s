# S/370 (MVS 3.8J's architecture): QCTRI and ECCTR from an S/370 EC-mode supervisor.
# Without `archs=all` the instructions do not exist there (operation exception); with it
# they work as in z/Architecture.
#   0x3000 QCTRI block, 0x3040 ECCTR R1 (low word of the instruction counter), 0x3044 IPM,
#   0x800.. program-interruption codes, a fullword each (count at 0x7FC)
        .include "s370.inc"
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
