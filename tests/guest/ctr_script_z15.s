# The counter-number and control-bit rules that depend on the counter version numbers
# (SA23-2260: Figures 2-4/2-6 for CFVN 3, 2-8 for CSVN 6 or 7, "Extended Counter Set",
# "MT-diagnostic Counter Set", LCCTL programming note 2) on a z15 model (CPUMODEL 8561:
# CFVN 3, CSVN 6; basic 6 counters, problem-state 2, crypto 20, extended 160; the
# MT-diagnostic set is not installed: Hercules has no multithreading).
# Cases and records: script.inc; expectations: the CASE lines (tests/counter_script.rs).
#   0x3000 QCTRI, 0x33F0 number of the last case, 0x4000.. records,
#   0x4400..0x4AFF STCCTM area (preset to 0xEE)
        .include "script.inc"
        .align 8
allinact: .quad 0x00000000000F0000
bit42:  .quad 0x0000000000200000
bit43:  .quad 0x0000000000100000
bit58:  .quad 0x0000000000000020
bit59:  .quad 0x0000000000000010

        .balign 8
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        mvc   0x1c0(16),svcpsw-0x1000(%r12)
        lay   %r1,0x1400(%r13)
        lghi  %r2,7
0:      mvc   0(256,%r1),ees-0x1000(%r12)
        la    %r1,256(%r1)
        brctg %r2,0b
        qctri 0(%r13)
        CASE 1, "cc 0", "LCCTL E_m (bit 42) with CSVN > 3: ignored"
        lcctl bit42-0x1000(%r12)
        REC
        CASE 2, "cc 0", "LCCTL C_m (bit 58) with CSVN > 3: ignored"
        lcctl bit58-0x1000(%r12)
        REC
        CASE 3, "pic 0x06", "LCCTL bit 43 with CSVN >= 5: specification"
        lcctl bit43-0x1000(%r12)
        REC
        CASE 4, "pic 0x06", "LCCTL bit 59 with CSVN >= 5: specification"
        lcctl bit59-0x1000(%r12)
        REC
        CASE 5, "cc 0", "LCCTL enable B, P, C, E"
        lcctl allinact-0x1000(%r12)
        REC
        CASE 6, "cc 0", "ECCTR 5 (basic, CFVN 3)"
        lghi  %r2,5
        ecctr %r4,%r2
        REC
        CASE 7, "cc 3", "ECCTR 6: unassigned"
        lghi  %r2,6
        ecctr %r4,%r2
        REC
        CASE 8, "cc 0", "ECCTR 33 (problem-state instruction count, CFVN 3)"
        lghi  %r2,33
        ecctr %r4,%r2
        REC
        CASE 9, "cc 3", "ECCTR 34: not installed for CFVN 3"
        lghi  %r2,34
        ecctr %r4,%r2
        REC
        CASE 10, "cc 3", "SCCTR 34: not installed for CFVN 3"
        lghi  %r2,34
        scctr %r4,%r2
        REC
        CASE 11, "cc 0", "ECCTR 83 (ECC blocked cycle count, CSVN 6)"
        lghi  %r2,83
        ecctr %r4,%r2
        REC
        CASE 12, "cc 3", "ECCTR 84: reserved for CSVN 6"
        lghi  %r2,84
        ecctr %r4,%r2
        REC
        CASE 13, "cc 0", "ECCTR 287 (last extended counter for CSVN > 5)"
        llill %r2,287
        ecctr %r4,%r2
        REC
        CASE 14, "cc 3", "ECCTR 288: beyond the extended counters"
        llill %r2,288
        ecctr %r4,%r2
        REC
        CASE 15, "cc 0", "SCCTR 287"
        llill %r2,287
        lghi  %r6,0x287
        scctr %r6,%r2
        REC
        CASE 16, "cc 3", "ECCTR 448: MT-diagnostic set not installed"
        llill %r2,448
        ecctr %r4,%r2
        REC
        CASE 17, "cc 0", "STCCTM problem-state, 2 of 2"
        lghi  %r4,2
        STCCTM %r4,2,0x1400(%r13)
        REC
        CASE 18, "cc 2", "STCCTM problem-state, 6 requested of 2"
        lghi  %r4,6
        STCCTM %r4,2,0x1400(%r13)
        REC
        CASE 19, "cc 0", "STCCTM crypto, 20 of 20"
        lghi  %r4,20
        STCCTM %r4,3,0x1440(%r13)
        REC
        CASE 20, "cc 1", "STCCTM crypto, 19 of 20"
        lghi  %r4,19
        STCCTM %r4,3,0x1440(%r13)
        REC
        CASE 21, "cc 2", "STCCTM crypto, 21 requested of 20"
        lghi  %r4,21
        STCCTM %r4,3,0x1440(%r13)
        REC
        CASE 22, "cc 0", "STCCTM extended, 160 of 160"
        lghi  %r4,160
        STCCTM %r4,0,0x1500(%r13)
        REC
        CASE 23, "cc 2", "STCCTM extended, 161 requested of 160"
        lghi  %r4,161
        STCCTM %r4,0,0x1500(%r13)
        REC
        CASE 24, "cc 3", "STCCTM M3 5: MT-diagnostic set not installed"
        lghi  %r4,48
        STCCTM %r4,5,0x1a00(%r13)
        REC
        mvhi  0x3f0(%r13),24
        DONE
