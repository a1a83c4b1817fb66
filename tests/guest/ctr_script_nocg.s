# Without coprocessor-group counter sets (HCPUMF_OPTIONS=cgroups=0): LPCTL programming
# note 1 ("when the coprocessor-group counter sets and the controls for the
# coprocessor-group counter sets are not installed, condition code 3 is set") and EPCTR /
# SPCTR ("the specified coprocessor-group address is ... not installed": cc 3).
# Cases and records: script.inc; expectations: the CASE lines (tests/counter_script.rs).
#   0x3000 QCTRI, 0x33F0 number of the last case, 0x4000.. records
        .include "script.inc"
        .align 8
cgen:   .quad 2
cgon:   .quad 3

        .balign 8
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        qctri 0(%r13)
        CASE 1, "cc 3", "LPCTL zeros: the group controls are not installed"
        lpctl zero-0x1000(%r12)
        REC
        CASE 2, "cc 3", "LPCTL enable: not installed"
        lpctl cgen-0x1000(%r12)
        REC
        CASE 3, "cc 3", "LPCTL enable and activate: not installed"
        lpctl cgon-0x1000(%r12)
        REC
        CASE 4, "cc 3", "EPCTR group 0: not installed"
        lghi  %r2,0
        epctr %r4,%r2
        REC
        CASE 5, "cc 3", "SPCTR group 0: not installed"
        spctr %r4,%r2
        REC
        mvhi  0x3f0(%r13),5
        DONE
