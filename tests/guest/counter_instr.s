# Every counter-facility instruction, condition code and program exception in sequence.
# Each step records its condition code in the byte CC+n (0xFF when a program interruption
# suppressed the instruction); program-interruption codes go to lowcore.inc's log in order.
#   0x3000 QCTRI at start, 0x3040 QCTRI after enabling, 0x3080 values (see the test),
#   0x3100 STCCTM area (16 doublewords preset to 0xEE..), 0x3200 condition codes
        .include "lowcore.inc"
        .macro CC n
        ipm   %r0
        srl   %r0,28
        stc   %r0,0x200+\n(%r13)
        .endm
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        mvc   0x1c0(16),svcpsw-0x1000(%r12)
        mvc   0x200(64,%r13),ffs-0x1000(%r12)     # condition codes: 0xFF until stored
        mvc   0x100(128,%r13),ees-0x1000(%r12)    # STCCTM area preset
        qctri 0(%r13)                               # 1: QCTRI
        lcctl bit0-0x1000(%r12)                     # 2: reserved bit 0: specification
        CC    2
        lcctl allsets-0x1000(%r12)                  # 3: enable + activate B P C E: cc 0
        CC    3
        lcctl badact-0x1000(%r12)                   # 4: C_c without E_c: cc 3
        CC    4
        lghi  %r2,1
        ecctr %r4,%r2                               # 5: instruction count: cc 0
        CC    5
        stg   %r4,0x80(%r13)
        lghi  %r2,6
        lghi  %r5,0x55
        ecctr %r5,%r2                               # 6: counter 6 unassigned: cc 3
        CC    6
        stg   %r5,0x88(%r13)                        #    R1 unchanged (0x55)
        llilf %r2,0x10001
        ecctr %r5,%r2                               # 7: R2 bits 0-47 nonzero: specification
        CC    7
        lghi  %r2,128
        lghi  %r6,0x1234
        scctr %r6,%r2                               # 8: set extended counter 128: cc 0
        CC    8
        ecctr %r7,%r2                               # 9: read it back: cc 0
        CC    9
        stg   %r7,0x90(%r13)
        lghi  %r1,6
        .insn rsy,0xeb0000000017,%r1,1,0x100(%r13)  # 10: STCCTM basic, 6 of 6: cc 0
        CC    10
        lghi  %r1,3
        .insn rsy,0xeb0000000017,%r1,2,0x140(%r13)  # 11: problem-state, 3 of 6: cc 1
        CC    11
        lghi  %r1,40
        .insn rsy,0xeb0000000017,%r1,3,0x160(%r13)  # 12: crypto, 40 > 16: cc 2 (16 stored)
        CC    12
        lghi  %r1,2
        .insn rsy,0xeb0000000017,%r1,5,0x100(%r13)  # 13: MT-diagnostic not installed: cc 3
        CC    13
        .insn rsy,0xeb0000000017,%r1,4,0x100(%r13)  # 14: M3 = 4 reserved: specification
        CC    14
        .insn rsy,0xeb0000000017,%r1,1,0x104(%r13)  # 15: misaligned: specification
        CC    15
        lghi  %r1,0
        .insn rsy,0xeb0000000017,%r1,1,0x100(%r13)  # 16: zero counters: cc 3
        CC    16
        lpctl cgon-0x1000(%r12)                     # 17: coprocessor group enable+act: cc 0
        CC    17
        lghi  %r2,5
        lghi  %r6,77
        spctr %r6,%r2                               # 18: set CG counter 5: cc 0
        CC    18
        epctr %r8,%r2                               # 19: read it: cc 0
        CC    19
        stg   %r8,0x98(%r13)
        lghi  %r2,0x108
        epctr %r8,%r2                               # 20: group 1 not installed: cc 3
        CC    20
        lghi  %r2,3
        llihf %r9,0x12345678
        oilf  %r9,0x9abcdef0
        ecpga %r9,%r2                               # 21: ECPGA for CPU 3: cc 0
        CC    21
        stg   %r9,0xa0(%r13)
        lghi  %r2,8
        ecpga %r9,%r2                               # 22: CPU 8 not installed: cc 3
        CC    22
        lpctl bit0-0x1000(%r12)                     # 23: LPCTL reserved bit: specification
        CC    23
        qctri 0x40(%r13)                            # 24: QCTRI after enabling
        llilf %r1,0x7ffff000
        qctri 0(%r1)                                # 25: beyond storage: addressing
        CC    25
        lcctl 0(%r1)                                # 26: operand beyond storage: addressing
        CC    26
        lghi  %r2,6
        scctr %r6,%r2                               # 35: SCCTR unassigned counter: cc 3
        CC    35
        llilf %r2,0x10001
        scctr %r6,%r2                               # 36: SCCTR R2 bits 0-47: specification
        lghi  %r1,6
        .insn rsy,0xeb0000000017,%r1,1,0(%r1)       # 37: STCCTM operand at 6 (misaligned)
        llilf %r1,0x7ffff000
        lghi  %r2,6
        .insn rsy,0xeb0000000017,%r2,1,0(%r1)       # 38: STCCTM beyond storage: addressing
        llilf %r2,0x1000000
        epctr %r8,%r2                               # 39: EPCTR R2 bits 0-39: specification
        spctr %r8,%r2                               # 40: SPCTR R2 bits 0-39: specification
        lghi  %r2,9
        spctr %r8,%r2                               # 41: SPCTR counter 9 not installed: cc 3
        CC    41
        llilf %r2,0x10000
        ecpga %r8,%r2                               # 42: ECPGA R2 bits 0-47: specification
        # Problem state without CR0 bit 15.
        lpswe prob1-0x1000(%r12)
p1:     lghi  %r2,1
        ecctr %r4,%r2                               # 27: privileged operation
        qctri 0(%r13)                               # 28: privileged operation
        .insn rsy,0xeb0000000017,%r2,1,0x100(%r13)  # 29: privileged operation
        lghi  %r2,1
        scctr %r2,%r2                               # 43: privileged operation
        lpctl cgon-0x1000(%r12)                     # 44: privileged operation
        lghi  %r2,0
        epctr %r4,%r2                               # 45: privileged operation
        spctr %r4,%r2                               # 46: privileged operation
        ecpga %r4,%r2                               # 47: privileged operation
        lpp   zero-0x1000(%r12)                     # 48: privileged operation
        qsi   0(%r13)                               # 49: privileged operation
        lsctl zero-0x1000(%r12)                     # 50: privileged operation
        svc   1
back1:  stctg %c0,%c0,0xb0(%r13)
        oi    0xb1(%r13),0x01                       # CR0 bit 15: extraction authorized
        lctlg %c0,%c0,0xb0(%r13)
        lpswe prob2-0x1000(%r12)
p2:     lghi  %r2,1
        ecctr %r4,%r2                               # 30: now allowed: cc 0
        CC    30
        .insn rsy,0xeb0000000017,%r2,9,0x100(%r13)  # 31: M3 = 9 in problem state: special op
        lcctl allsets-0x1000(%r12)                  # 32: still privileged
        svc   2
back2:  lcctl zero-0x1000(%r12)                     # 33: disable all: cc 0
        CC    33
        lghi  %r2,1
        ecctr %r4,%r2                               # 34: disabled: cc 3
        CC    34
        DONE
        .align 8
bit0:   .quad 0x8000000000000000
allsets: .quad 0x00000000000F000F
badact: .quad 0x0000000000070008
cgon:   .quad 3
zero:   .quad 0
svcpsw: .quad 0x0000000180000000, svcret
prob1:  .quad 0x0001000180000000, p1
prob2:  .quad 0x0001000180000000, p2
svcret: clhhsi 0x8a,1                               # SVC interruption code: 1 or 2
        jne   2f
        jg    back1
2:      jg    back2
ffs:    .fill 64,1,0xff
ees:    .fill 128,1,0xee
