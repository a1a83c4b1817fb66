# LCCTL programming note 2 on a z13 model (CPUMODEL 2964: CFVN 1, CSVN 4): bits 42/58 and,
# for CSVN 4 only, bits 43/59 are ignored; extended counters 128-255 (CSVN 3-5).
# Cases and records: script.inc; expectations: the CASE lines (tests/counter_script.rs).
#   0x3000 QCTRI after the cases, 0x33F0 number of the last case, 0x4000.. records
        .include "script.inc"
        .align 8
ignored: .quad 0x0000000000300030
allinact: .quad 0x00000000000F0000
bit41:  .quad 0x0000000000400000

        .balign 8
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        CASE 1, "cc 0", "LCCTL bits 42, 43, 58, 59 with CSVN 4: ignored"
        lcctl ignored-0x1000(%r12)
        REC
        CASE 2, "pic 0x06", "LCCTL bit 41: specification"
        lcctl bit41-0x1000(%r12)
        REC
        CASE 3, "cc 0", "LCCTL enable B, P, C, E"
        lcctl allinact-0x1000(%r12)
        REC
        CASE 4, "cc 0", "ECCTR 37 (CFVN 1: 6 problem-state counters)"
        lghi  %r2,37
        ecctr %r4,%r2
        REC
        CASE 5, "cc 3", "ECCTR 80: crypto counters 64-79 for CSVN 1-5"
        lghi  %r2,80
        ecctr %r4,%r2
        REC
        CASE 6, "cc 0", "ECCTR 255 (last extended counter for CSVN 3-5)"
        llill %r2,255
        ecctr %r4,%r2
        REC
        CASE 7, "cc 3", "ECCTR 256: beyond the extended counters"
        llill %r2,256
        ecctr %r4,%r2
        REC
        qctri 0(%r13)
        mvhi  0x3f0(%r13),7
        DONE
