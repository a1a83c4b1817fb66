# The counter facility's instructions as a table of cases (SA23-2260, section 2,
# "Instructions" and "State of Counter Set"), in one run on a z10 model (CPUMODEL 2097:
# CFVN 1, CSVN 1, basic and problem-state sets of 6 counters, crypto 16, extended 24 (a z10's
# counters 128-151, Redbook SG24-7857 Figure 3-7; CSVN 1 allows up to 32), no
# MT-diagnostic set, one coprocessor group (address 0), maximum CPU address 7).
#
# The cases and their recording: script.inc. tests/counter_script.rs reads the
# expectations from the CASE lines of this file and checks the values below.
#   0x3000 QCTRI at start, 0x3041 QCTRI at an odd address, 0x30C0 QCTRI after the
#          specification cases, 0x3100 QCTRI after the refused LCCTL, 0x3140 QCTRI with
#          the coprocessor group unauthorized
#   0x3180.. values (see the test), 0x3300 scratch, 0x3310.. external interruptions
#   taken in three enabled spins, 0x33F0 number of the last case,
#   0x4000.. case records,
#   0x4400..0x46FF STCCTM areas (preset to 0xEE), 0x5000 page of storage key 1,
#   0x6000 page of storage key 1 with fetch protection.
        .include "script.inc"
        .align 8
bit0:   .quad 0x8000000000000000
bit31:  .quad 0x0000000100000000
bit32:  .quad 0x0000000080000000
bit41:  .quad 0x0000000000400000
bit42:  .quad 0x0000000000200000
bit43:  .quad 0x0000000000100000
bit48:  .quad 0x0000000000008000
bit57:  .quad 0x0000000000000040
bit58:  .quad 0x0000000000000020
bit59:  .quad 0x0000000000000010
bit61:  .quad 0x0000000000000004
allplus: .quad 0x00000000000F800F
bact:   .quad 0x0000000000000002
allinact: .quad 0x00000000000F0000
allact: .quad 0x00000000000F000F
ponly:  .quad 0x0000000000040000
bceact: .quad 0x00000000000B000B
cgen:   .quad 2
cgact:  .quad 1
cgon:   .quad 3
        .byte 0                                 # an odd address for allinodd
allinodd: .quad 0x00000000000F0000

        .balign 8
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        mvc   0x1c0(16),svcpsw-0x1000(%r12)
        lay   %r1,0x1400(%r13)
        mvc   0(256,%r1),ees-0x1000(%r12)
        mvc   256(256,%r1),ees-0x1000(%r12)
        mvc   512(256,%r1),ees-0x1000(%r12)
        mvc   0x000(192,%r13),ees-0x1000(%r12)
        lghi  %r2,0x10                          # page 0x5000: key 1
        lghi  %r3,0x5000
        sske  %r2,%r3
        lghi  %r2,0x18                          # page 0x6000: key 1, fetch protected
        lghi  %r3,0x6000
        sske  %r2,%r3
# ---- QCTRI ----------------------------------------------------------------------------
        CASE 1, "cc 2", "QCTRI: the condition code remains unchanged"
        SETCC2
        qctri 0(%r13)
        REC
        CASE 2, "cc 2", "QCTRI: no alignment required (stores at an odd address)"
        SETCC2
        qctri 0x41(%r13)
        REC
        CASE 3, "pic 0x05", "QCTRI: operand beyond main storage: addressing"
        llilf %r2,0x7ffff000
        qctri 0(%r2)
        REC
        CASE 4, "pic 0x05", "QCTRI: operand crossing the end of storage: addressing, nothing stored"
        llilf %r2,0x3ffffe0
        qctri 0(%r2)
        REC
        CASE 5, "pic 0x04", "QCTRI: store into a page of another key: protection"
        spka  0x80
        llill %r2,0x5000
        qctri 0(%r2)
        spka  0
        REC
        PROB
        CR0X  0
        CASE 6, "pic 0x02", "QCTRI in the problem state: privileged operation"
        qctri 0(%r13)
        REC
        SUP
        CR0X  1
        PROB
        CASE 7, "pic 0x02", "QCTRI in the problem state with CR0 bit 15: still privileged"
        qctri 0(%r13)
        REC
        SUP
        CR0X  0
# ---- LCCTL: operand checks (all sets disabled) -----------------------------------------
        CASE 8, "cc 0", "LCCTL all zeros: disabled stays disabled"
        lcctl zero-0x1000(%r12)
        REC
        CASE 9, "pic 0x06", "LCCTL bit 0 must be zero: specification"
        lcctl bit0-0x1000(%r12)
        REC
        CASE 10, "pic 0x06", "LCCTL bit 31 must be zero: specification"
        lcctl bit31-0x1000(%r12)
        REC
        CASE 11, "pic 0x06", "LCCTL bit 32 must be zero: specification"
        lcctl bit32-0x1000(%r12)
        REC
        CASE 12, "pic 0x06", "LCCTL bit 41 must be zero: specification"
        lcctl bit41-0x1000(%r12)
        REC
        CASE 13, "pic 0x06", "LCCTL E_m (bit 42) must be zero when CSVN <= 3: specification"
        lcctl bit42-0x1000(%r12)
        REC
        CASE 14, "pic 0x06", "LCCTL E_r (bit 43) must be zero when CSVN <= 3: specification"
        lcctl bit43-0x1000(%r12)
        REC
        CASE 15, "pic 0x06", "LCCTL bit 48 must be zero: specification"
        lcctl bit48-0x1000(%r12)
        REC
        CASE 16, "pic 0x06", "LCCTL bit 57 must be zero: specification"
        lcctl bit57-0x1000(%r12)
        REC
        CASE 17, "pic 0x06", "LCCTL C_m (bit 58) must be zero when CSVN <= 3: specification"
        lcctl bit58-0x1000(%r12)
        REC
        CASE 18, "pic 0x06", "LCCTL C_r (bit 59) must be zero when CSVN <= 3: specification"
        lcctl bit59-0x1000(%r12)
        REC
        CASE 19, "pic 0x06", "LCCTL valid controls with a reserved bit: specification, nothing set"
        lcctl allplus-0x1000(%r12)
        REC
        CASE 20, "pic 0x05", "LCCTL operand beyond main storage: addressing"
        llilf %r2,0x7ffff000
        lcctl 0(%r2)
        REC
        CASE 21, "pic 0x04", "LCCTL operand fetch-protected: protection"
        spka  0x80
        llill %r2,0x6000
        lcctl 0(%r2)
        spka  0
        REC
        qctri 0xc0(%r13)                        # nothing enabled by the cases above
        PROB
        CASE 22, "pic 0x02", "LCCTL in the problem state: privileged operation"
        lcctl zero-0x1000(%r12)
        REC
        SUP
        CR0X  1
        PROB
        CASE 23, "pic 0x02", "LCCTL in the problem state with CR0 bit 15: still privileged"
        lcctl zero-0x1000(%r12)
        REC
        SUP
        CR0X  0
# ---- LCCTL: state transitions (Figure 2-2) --------------------------------------------
        CASE 24, "cc 3", "LCCTL C_b without E_b: no valid state, controls not set"
        lcctl bact-0x1000(%r12)
        REC
        CASE 25, "cc 3", "ECCTR 0: basic set still disabled (cc 3 left nothing set)"
        lghi  %r2,0
        ecctr %r4,%r2
        REC
        CASE 26, "cc 0", "LCCTL enable B, P, C, E (disabled -> inactive)"
        lcctl allinact-0x1000(%r12)
        REC
        CASE 27, "cc 0", "LCCTL again the same state: successfully set"
        lcctl allinact-0x1000(%r12)
        REC
        CASE 28, "cc 0", "LCCTL operand at an odd address: no alignment required"
        lcctl allinodd-0x1000(%r12)
        REC
# ---- ECCTR / SCCTR on inactive sets ---------------------------------------------------
        CASE 29, "cc 0", "ECCTR 0 (basic, inactive)"
        lghi  %r2,0
        ecctr %r4,%r2
        REC
        CASE 30, "cc 0", "ECCTR 5 (last basic counter for CFVN 1)"
        lghi  %r2,5
        ecctr %r4,%r2
        REC
        CASE 31, "cc 3", "ECCTR 6: unassigned basic counter, R1 unchanged"
        lghi  %r2,6
        lghi  %r4,0x55
        ecctr %r4,%r2
        REC
        stg   %r4,0x180(%r13)
        CASE 32, "cc 3", "ECCTR 31: unassigned"
        lghi  %r2,31
        ecctr %r4,%r2
        REC
        CASE 33, "cc 0", "ECCTR 32 (problem-state)"
        lghi  %r2,32
        ecctr %r4,%r2
        REC
        CASE 34, "cc 0", "ECCTR 37 (last problem-state counter for CFVN 1)"
        lghi  %r2,37
        ecctr %r4,%r2
        REC
        CASE 35, "cc 3", "ECCTR 38: unassigned"
        lghi  %r2,38
        ecctr %r4,%r2
        REC
        CASE 36, "cc 0", "ECCTR 64 (crypto)"
        lghi  %r2,64
        ecctr %r4,%r2
        REC
        CASE 37, "cc 0", "ECCTR 79 (last crypto counter for CSVN 1-5)"
        lghi  %r2,79
        ecctr %r4,%r2
        REC
        CASE 38, "cc 3", "ECCTR 80: not installed for CSVN 1"
        lghi  %r2,80
        ecctr %r4,%r2
        REC
        CASE 39, "cc 3", "ECCTR 127: reserved"
        lghi  %r2,127
        ecctr %r4,%r2
        REC
        CASE 40, "cc 0", "ECCTR 128 (first extended counter)"
        lghi  %r2,128
        ecctr %r4,%r2
        REC
        CASE 41, "cc 0", "ECCTR 151 (last extended counter of a z10)"
        lghi  %r2,151
        ecctr %r4,%r2
        REC
        CASE 42, "cc 3", "ECCTR 152: beyond the extended counters a z10 installs"
        lghi  %r2,152
        ecctr %r4,%r2
        REC
        CASE 43, "cc 3", "ECCTR 287: beyond the extended counters of CSVN 1"
        llill %r2,287
        ecctr %r4,%r2
        REC
        CASE 44, "cc 3", "ECCTR 448: MT-diagnostic set not installed (CSVN <= 3)"
        llill %r2,448
        ecctr %r4,%r2
        REC
        CASE 45, "cc 3", "ECCTR 65535: unassigned"
        llill %r2,0xffff
        ecctr %r4,%r2
        REC
        CASE 46, "pic 0x06", "ECCTR R2 bit 47 one: specification"
        llilf %r2,0x10000
        ecctr %r4,%r2
        REC
        CASE 47, "pic 0x06", "ECCTR R2 bit 31 one: specification"
        llihl %r2,1
        ecctr %r4,%r2
        REC
        CASE 48, "pic 0x06", "ECCTR R2 bit 0 one: specification"
        llihh %r2,0x8000
        ecctr %r4,%r2
        REC
        CASE 49, "cc 0", "SCCTR 128 of the inactive extended set"
        lghi  %r2,128
        llilf %r6,0x1234
        scctr %r6,%r2
        REC
        CASE 50, "cc 0", "ECCTR 128 reads the value set"
        ecctr %r4,%r2
        REC
        stg   %r4,0x188(%r13)
        CASE 51, "cc 3", "SCCTR 6: unassigned"
        lghi  %r2,6
        scctr %r6,%r2
        REC
        CASE 52, "cc 3", "SCCTR 152: not installed (a z10 has 128-151)"
        lghi  %r2,152
        scctr %r6,%r2
        REC
        CASE 53, "cc 3", "SCCTR 448: MT-diagnostic set not installed"
        llill %r2,448
        scctr %r6,%r2
        REC
        CASE 54, "pic 0x06", "SCCTR R2 bit 47 one: specification"
        llilf %r2,0x10000
        scctr %r6,%r2
        REC
        CASE 55, "pic 0x06", "SCCTR R2 bit 0 one: specification"
        llihh %r2,0x8000
        scctr %r6,%r2
        REC
        # Basic counters 2-5 get known values for STCCTM.
        lghi  %r2,2
        lghi  %r6,0x22
        scctr %r6,%r2
        lghi  %r2,3
        lghi  %r6,0x33
        scctr %r6,%r2
        lghi  %r2,4
        lghi  %r6,0x44
        scctr %r6,%r2
        lghi  %r2,5
        lghi  %r6,0x55
        scctr %r6,%r2
# ---- counting only while active -------------------------------------------------------
        CASE 56, "cc 0", "ECCTR 1 of the inactive basic set"
        lghi  %r2,1
        ecctr %r4,%r2
        REC
        stg   %r4,0x190(%r13)
        llilf %r6,10000
1:      brctg %r6,1b
        CASE 57, "cc 0", "ECCTR 1 again after 10000 loops: inactive, not counted"
        lghi  %r2,1
        ecctr %r4,%r2
        REC
        stg   %r4,0x198(%r13)
        CASE 58, "cc 0", "LCCTL activate B, P, C, E (inactive -> active)"
        lcctl allact-0x1000(%r12)
        REC
        lghi  %r2,1
        ecctr %r4,%r2
        stg   %r4,0x1a0(%r13)
        llilf %r6,10000
1:      brctg %r6,1b
        CASE 59, "cc 0", "ECCTR 1 after 10000 loops while active"
        lghi  %r2,1
        ecctr %r4,%r2
        REC
        stg   %r4,0x1a8(%r13)
        CASE 60, "cc 0", "SCCTR 1 of the active basic set"
        lghi  %r2,1
        llilf %r6,1000000
        scctr %r6,%r2
        REC
        ecctr %r4,%r2
        stg   %r4,0x1b8(%r13)
# ---- STCCTM ---------------------------------------------------------------------------
        lcctl allinact-0x1000(%r12)             # inactive: stable values
        CASE 61, "cc 2", "STCCTM basic, 7 requested of 6: all 6 stored"
        lghi  %r4,7
        STCCTM %r4,1,0x1400(%r13)
        REC
        CASE 62, "cc 1", "STCCTM basic, 5 requested of 6: 5 stored"
        lghi  %r4,5
        STCCTM %r4,1,0x1440(%r13)
        REC
        CASE 63, "cc 0", "STCCTM extended, 24 of 24"
        lghi  %r4,24
        STCCTM %r4,0,0x1480(%r13)
        REC
        CASE 64, "cc 1", "STCCTM extended, 23 of 24"
        lghi  %r4,23
        STCCTM %r4,0,0x1480(%r13)
        REC
        CASE 65, "cc 2", "STCCTM crypto, 17 requested of 16"
        lghi  %r4,17
        STCCTM %r4,3,0x1580(%r13)
        REC
        CASE 66, "cc 0", "STCCTM problem-state, 6 of 6"
        lghi  %r4,6
        STCCTM %r4,2,0x1620(%r13)
        REC
        CASE 67, "cc 2", "STCCTM problem-state, 65535 requested"
        llill %r4,0xffff
        STCCTM %r4,2,0x1620(%r13)
        REC
        CASE 68, "cc 3", "STCCTM basic, zero counters requested: nothing stored"
        lghi  %r4,0
        STCCTM %r4,1,0x1660(%r13)
        REC
        CASE 69, "cc 3", "STCCTM M3 5: MT-diagnostic set not installed"
        lghi  %r4,1
        STCCTM %r4,5,0x1660(%r13)
        REC
        CASE 70, "cc 3", "STCCTM M3 9: MT-diagnostic set not installed"
        lghi  %r4,1
        STCCTM %r4,9,0x1660(%r13)
        REC
        CASE 71, "pic 0x06", "STCCTM M3 4 (reserved for IBM use): specification"
        lghi  %r4,1
        STCCTM %r4,4,0x1660(%r13)
        REC
        CASE 72, "pic 0x06", "STCCTM M3 6 (reserved): specification"
        STCCTM %r4,6,0x1660(%r13)
        REC
        CASE 73, "pic 0x06", "STCCTM M3 7 (reserved): specification"
        STCCTM %r4,7,0x1660(%r13)
        REC
        CASE 74, "pic 0x06", "STCCTM M3 8 (reserved for IBM use): specification"
        STCCTM %r4,8,0x1660(%r13)
        REC
        CASE 75, "pic 0x06", "STCCTM M3 10 (reserved): specification"
        STCCTM %r4,10,0x1660(%r13)
        REC
        CASE 76, "pic 0x06", "STCCTM M3 11 (reserved): specification"
        STCCTM %r4,11,0x1660(%r13)
        REC
        CASE 77, "pic 0x06", "STCCTM M3 12 (reserved): specification"
        STCCTM %r4,12,0x1660(%r13)
        REC
        CASE 78, "pic 0x06", "STCCTM M3 13 (reserved): specification"
        STCCTM %r4,13,0x1660(%r13)
        REC
        CASE 79, "pic 0x06", "STCCTM M3 14 (reserved): specification"
        STCCTM %r4,14,0x1660(%r13)
        REC
        CASE 80, "pic 0x06", "STCCTM M3 15 (reserved): specification"
        STCCTM %r4,15,0x1660(%r13)
        REC
        CASE 81, "pic 0x06", "STCCTM R1 bit 47 one: specification"
        llilf %r4,0x10006
        STCCTM %r4,1,0x1660(%r13)
        REC
        CASE 82, "pic 0x06", "STCCTM R1 bit 0 one: specification"
        llihh %r4,0x8000
        oill  %r4,6
        STCCTM %r4,1,0x1660(%r13)
        REC
        CASE 83, "pic 0x06", "STCCTM operand on a word boundary: specification"
        lghi  %r4,6
        STCCTM %r4,1,0x1664(%r13)
        REC
        CASE 84, "pic 0x06", "STCCTM operand at an odd address: specification"
        STCCTM %r4,1,0x1661(%r13)
        REC
        CASE 85, "pic 0x05", "STCCTM operand beyond main storage: addressing"
        llilf %r2,0x7ffff000
        STCCTM %r4,1,0(%r2)
        REC
        CASE 86, "pic 0x05", "STCCTM operand crossing the end of storage: addressing"
        llilf %r2,0x3fffff8
        STCCTM %r4,1,0(%r2)
        REC
        CASE 87, "pic 0x04", "STCCTM into a page of another key: protection"
        spka  0x80
        llill %r2,0x5000
        STCCTM %r4,1,0(%r2)
        spka  0
        REC
        PROB
        CASE 88, "pic 0x02", "STCCTM in the problem state without CR0 bit 15: privileged operation"
        lghi  %r4,6
        STCCTM %r4,1,0x1660(%r13)
        REC
        SUP
        CR0X  1
        PROB
        CASE 89, "cc 0", "STCCTM in the problem state with CR0 bit 15"
        lghi  %r4,6
        STCCTM %r4,1,0x1660(%r13)
        REC
        CASE 90, "cc 3", "STCCTM M3 5 in the problem state with CR0 bit 15: allowed, not installed"
        STCCTM %r4,5,0x16a0(%r13)
        REC
        CASE 91, "pic 0x13", "STCCTM M3 9 in the problem state: special operation"
        STCCTM %r4,9,0x16a0(%r13)
        REC
        CASE 92, "pic 0x06", "STCCTM M3 6 in the problem state: specification"
        STCCTM %r4,6,0x16a0(%r13)
        REC
# ---- ECCTR and the others in the problem state ----------------------------------------
        CASE 93, "cc 0", "ECCTR in the problem state with CR0 bit 15"
        lghi  %r2,1
        ecctr %r4,%r2
        REC
        CASE 94, "pic 0x06", "ECCTR in the problem state with CR0 bit 15, R2 bit 47: specification"
        llilf %r2,0x10000
        ecctr %r4,%r2
        REC
        CASE 95, "pic 0x02", "SCCTR in the problem state with CR0 bit 15: privileged operation"
        lghi  %r2,128
        scctr %r4,%r2
        REC
        CASE 96, "pic 0x02", "EPCTR in the problem state with CR0 bit 15: privileged operation"
        lghi  %r2,0
        epctr %r4,%r2
        REC
        CASE 97, "pic 0x02", "SPCTR in the problem state with CR0 bit 15: privileged operation"
        spctr %r4,%r2
        REC
        CASE 98, "pic 0x02", "ECPGA in the problem state with CR0 bit 15: privileged operation"
        ecpga %r4,%r2
        REC
        CASE 99, "pic 0x02", "LPCTL in the problem state with CR0 bit 15: privileged operation"
        lpctl zero-0x1000(%r12)
        REC
        SUP
        CR0X  0
        PROB
        CASE 100, "pic 0x02", "ECCTR in the problem state without CR0 bit 15: privileged operation"
        lghi  %r2,1
        ecctr %r4,%r2
        REC
        CASE 101, "pic 0x02", "ECCTR without CR0 bit 15 and R2 bit 47: privileged operation first"
        llilf %r2,0x10000
        ecctr %r4,%r2
        REC
        CASE 102, "pic 0x02", "STCCTM M3 6 without CR0 bit 15: privileged operation first"
        lghi  %r4,6
        STCCTM %r4,6,0x1660(%r13)
        REC
        CASE 103, "pic 0x02", "STCCTM misaligned without CR0 bit 15: privileged operation first"
        STCCTM %r4,1,0x1664(%r13)
        REC
        CASE 104, "pic 0x02", "STCCTM M3 9 without CR0 bit 15: privileged operation"
        STCCTM %r4,9,0x1660(%r13)
        REC
        SUP
# ---- disabling clears, direct transitions ---------------------------------------------
        CASE 105, "cc 0", "LCCTL disable every set (inactive -> disabled)"
        lcctl zero-0x1000(%r12)
        REC
        CASE 106, "cc 3", "ECCTR 128 of the disabled set: not available"
        lghi  %r2,128
        ecctr %r4,%r2
        REC
        CASE 107, "cc 3", "SCCTR 128 of the disabled set: not available"
        scctr %r4,%r2
        REC
        CASE 108, "cc 3", "STCCTM of the disabled basic set: nothing stored"
        lghi  %r4,6
        STCCTM %r4,1,0x16c0(%r13)
        REC
        CASE 109, "cc 0", "LCCTL enable again"
        lcctl allinact-0x1000(%r12)
        REC
        CASE 110, "cc 0", "ECCTR 128: cleared when the set was disabled"
        lghi  %r2,128
        lghi  %r4,-1
        ecctr %r4,%r2
        REC
        stg   %r4,0x1b0(%r13)
        CASE 111, "cc 0", "LCCTL disabled -> active directly"
        lcctl zero-0x1000(%r12)
        lcctl allact-0x1000(%r12)
        REC
        CASE 112, "cc 0", "LCCTL active -> disabled directly"
        lcctl zero-0x1000(%r12)
        REC
        CASE 113, "cc 3", "ECCTR 1 of the disabled basic set"
        lghi  %r2,1
        ecctr %r4,%r2
        REC
# ---- authorization by external means: all-or-nothing LCCTL ----------------------------
        lcctl allinact-0x1000(%r12)
        lghi  %r2,128
        llilf %r6,0x4321
        scctr %r6,%r2
        OPER  "hcpumf auth counters=b,c,e,g cpu=0"
        CASE 114, "cc 3", "ECCTR 32: problem-state set unauthorized"
        lghi  %r2,32
        ecctr %r4,%r2
        REC
        CASE 115, "cc 3", "LCCTL activating B, P, C, E with P unauthorized: nothing set"
        lcctl allact-0x1000(%r12)
        REC
        CASE 116, "cc 0", "ECCTR 128 after the refused LCCTL: still enabled, value kept"
        lghi  %r2,128
        ecctr %r4,%r2
        REC
        stg   %r4,0x1e8(%r13)
        qctri 0x100(%r13)
        CASE 117, "cc 3", "LCCTL enabling only the unauthorized P: controls not set"
        lcctl ponly-0x1000(%r12)
        REC
        CASE 118, "cc 0", "LCCTL activating B, C, E with zeros for the unauthorized P: set"
        lcctl bceact-0x1000(%r12)
        REC
        CASE 119, "cc 3", "SCCTR 32: problem-state set unauthorized"
        lghi  %r2,32
        scctr %r4,%r2
        REC
        CASE 120, "cc 3", "STCCTM problem-state set unauthorized: nothing stored"
        lghi  %r4,6
        STCCTM %r4,2,0x16c0(%r13)
        REC
        OPER  "hcpumf auth counters=all cpu=0"
# ---- LPCTL, EPCTR, SPCTR, ECPGA -------------------------------------------------------
        CASE 121, "cc 0", "LPCTL zeros: disabled stays disabled"
        lpctl zero-0x1000(%r12)
        REC
        CASE 122, "cc 3", "LPCTL activation without enable: no valid state"
        lpctl cgact-0x1000(%r12)
        REC
        CASE 123, "cc 3", "EPCTR while the groups are disabled"
        lghi  %r2,5
        epctr %r4,%r2
        REC
        CASE 124, "pic 0x06", "LPCTL bit 61 must be zero: specification"
        lpctl bit61-0x1000(%r12)
        REC
        CASE 125, "pic 0x06", "LPCTL bit 0 must be zero: specification"
        lpctl bit0-0x1000(%r12)
        REC
        CASE 126, "pic 0x05", "LPCTL operand beyond main storage: addressing"
        llilf %r2,0x7ffff000
        lpctl 0(%r2)
        REC
        CASE 127, "pic 0x04", "LPCTL operand fetch-protected: protection"
        spka  0x80
        llill %r2,0x6000
        lpctl 0(%r2)
        spka  0
        REC
        CASE 128, "cc 0", "LPCTL enable (disabled -> inactive)"
        lpctl cgen-0x1000(%r12)
        REC
        CASE 129, "cc 0", "SPCTR group 0 counter 5"
        lghi  %r2,5
        lghi  %r6,77
        spctr %r6,%r2
        REC
        CASE 130, "cc 0", "EPCTR group 0 counter 5"
        lghi  %r4,-1
        epctr %r4,%r2
        REC
        stg   %r4,0x1c0(%r13)
        CASE 131, "cc 3", "EPCTR counter 8: not installed"
        lghi  %r2,8
        epctr %r4,%r2
        REC
        CASE 132, "cc 3", "EPCTR group 1: not installed"
        lghi  %r2,0x105
        epctr %r4,%r2
        REC
        CASE 133, "cc 3", "EPCTR group 0x8000 (R2 bit 40 is part of the group address)"
        llilf %r2,0x800005
        epctr %r4,%r2
        REC
        CASE 134, "pic 0x06", "EPCTR R2 bit 39 one: specification"
        llilf %r2,0x1000005
        epctr %r4,%r2
        REC
        CASE 135, "cc 3", "SPCTR counter 8: not installed"
        lghi  %r2,8
        spctr %r6,%r2
        REC
        CASE 136, "pic 0x06", "SPCTR R2 bit 0 one: specification"
        llihh %r2,0x8000
        spctr %r6,%r2
        REC
        CASE 137, "cc 0", "LPCTL activate (inactive -> active)"
        lpctl cgon-0x1000(%r12)
        REC
        OPER  "hcpumf auth counters=b,p,c,e cpu=0"
        CASE 138, "cc 3", "EPCTR with the groups unauthorized for this CPU"
        lghi  %r2,5
        epctr %r4,%r2
        REC
        qctri 0x140(%r13)
        CASE 139, "cc 3", "LPCTL enable and activate while unauthorized: external control only"
        lpctl cgon-0x1000(%r12)
        REC
        CASE 140, "cc 0", "LPCTL zeros while unauthorized: same state, cc 0, nothing changes"
        lpctl zero-0x1000(%r12)
        REC
        OPER  "hcpumf auth counters=all cpu=0"
        CASE 141, "cc 0", "EPCTR 5 authorized again: counters not cleared by unauthorization"
        lghi  %r2,5
        lghi  %r4,-1
        epctr %r4,%r2
        REC
        stg   %r4,0x1d0(%r13)
        CASE 142, "cc 0", "LPCTL disable (active -> disabled)"
        lpctl zero-0x1000(%r12)
        REC
        CASE 143, "cc 3", "SPCTR while disabled"
        lghi  %r2,5
        spctr %r6,%r2
        REC
        lpctl cgen-0x1000(%r12)
        CASE 144, "cc 0", "EPCTR 5 enabled again: cleared when disabled"
        lghi  %r4,-1
        epctr %r4,%r2
        REC
        stg   %r4,0x1c8(%r13)
        lpctl zero-0x1000(%r12)
        CASE 145, "cc 0", "ECPGA CPU 0"
        lghi  %r2,0
        llihf %r4,0x12345678
        oilf  %r4,0x9abcdef0
        ecpga %r4,%r2
        REC
        stg   %r4,0x1d8(%r13)
        CASE 146, "cc 0", "ECPGA CPU 7 (maximum CPU address)"
        lghi  %r2,7
        ecpga %r4,%r2
        REC
        CASE 147, "cc 3", "ECPGA CPU 8: not installed, R1 unchanged"
        lghi  %r2,8
        lghi  %r4,0x66
        ecpga %r4,%r2
        REC
        stg   %r4,0x1e0(%r13)
        CASE 148, "pic 0x06", "ECPGA R2 bit 47 one: specification"
        llilf %r2,0x10000
        ecpga %r4,%r2
        REC
        CASE 149, "pic 0x06", "ECPGA R2 bit 0 one: specification"
        llihh %r2,0x8000
        ecpga %r4,%r2
        REC
# ---- pending alerts and the enable controls ("Measurement Alert") ----------------------
        stctg %c0,%c0,0x308(%r13)
        oi    0x30f(%r13),0x20                  # CR0 bit 58: measurement-alert subclass
        lctlg %c0,%c0,0x308(%r13)
        # Taking away the authorization of the enabled problem-state set above was a
        # counter-authorization change; its request is still pending (not cleared by the
        # disabling of every set since).
        llilf %r3,300000000
        bras  %r14,extspin
        stg   %r2,0x310(%r13)
        lcctl allinact-0x1000(%r12)
        OPER  "hcpumf inject lcda cpu=0"
        CASE 150, "cc 0", "LCCTL disable every set: a pending loss of counter data is cleared"
        lcctl zero-0x1000(%r12)
        REC
        llilf %r3,30000000
        bras  %r14,extspin
        stg   %r2,0x318(%r13)
        lcctl allinact-0x1000(%r12)
        OPER  "hcpumf inject caca cpu=0"
        CASE 151, "cc 0", "LCCTL disable every set: a pending authorization change stays"
        lcctl zero-0x1000(%r12)
        REC
        llilf %r3,300000000
        bras  %r14,extspin
        stg   %r2,0x320(%r13)
        mvhi  0x3f0(%r13),151
        DONE

# External interruptions taken with the external mask on, into R2: R3 loops at most (30 M
# are about 0.1 s), ended by the first interruption.
extspin: lg   %r5,0x3bf8
        stosm 0x300(%r13),0x01
        lgr   %r6,%r3
1:      lg    %r0,0x3bf8
        cgr   %r0,%r5
        jne   2f
        brctg %r6,1b
2:      stnsm 0x300(%r13),0xfe
        lg    %r2,0x3bf8
        sgr   %r2,%r5
        br    %r14

