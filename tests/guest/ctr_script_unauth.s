# Every counter set unauthorized by external means (`hcpumf auth counters=none` before the
# guest starts): the unauthorized state of Figures 2-1 and 2-2 can only be left by external
# control; setting it to itself (all zeros) succeeds (LCCTL programming note 1); no counter
# is available (ECCTR, SCCTR, STCCTM, EPCTR, SPCTR: cc 3).
# Cases and records: script.inc; expectations: the CASE lines (tests/counter_script.rs).
#   0x3000 QCTRI at the end, 0x33F0 number of the last case, 0x4000.. records,
#   0x4400 STCCTM area (preset to 0xEE)
        .include "script.inc"
        .align 8
allinact: .quad 0x00000000000F0000
allact: .quad 0x00000000000F000F
bonly:  .quad 0x0000000000020000
cgen:   .quad 2

        .balign 8
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lay   %r1,0x1400(%r13)
        mvc   0(64,%r1),ees-0x1000(%r12)
        CASE 1, "cc 0", "LCCTL zeros: unauthorized to unauthorized, successfully set"
        lcctl zero-0x1000(%r12)
        REC
        CASE 2, "cc 3", "LCCTL enable B: unauthorized -> inactive is external control only"
        lcctl bonly-0x1000(%r12)
        REC
        CASE 3, "cc 3", "LCCTL enable and activate every set"
        lcctl allact-0x1000(%r12)
        REC
        CASE 4, "cc 3", "ECCTR 0: unauthorized"
        lghi  %r2,0
        ecctr %r4,%r2
        REC
        CASE 5, "cc 3", "SCCTR 128: unauthorized"
        lghi  %r2,128
        scctr %r4,%r2
        REC
        CASE 6, "cc 3", "STCCTM basic: unauthorized, nothing stored"
        lghi  %r4,6
        STCCTM %r4,1,0x1400(%r13)
        REC
        CASE 7, "cc 0", "LPCTL zeros: unauthorized groups set to the same state"
        lpctl zero-0x1000(%r12)
        REC
        CASE 8, "cc 3", "LPCTL enable: unauthorized"
        lpctl cgen-0x1000(%r12)
        REC
        CASE 9, "cc 3", "EPCTR: unauthorized"
        lghi  %r2,0
        epctr %r4,%r2
        REC
        CASE 10, "cc 3", "SPCTR: unauthorized"
        spctr %r4,%r2
        REC
        CASE 11, "pic 0x06", "ECCTR R2 bit 47: specification comes before availability"
        llilf %r2,0x10000
        ecctr %r4,%r2
        REC
        qctri 0(%r13)
        mvhi  0x3f0(%r13),11
        DONE
