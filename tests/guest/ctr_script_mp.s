# NUMCPU 2: the coprocessor-group counter sets are global, their authorization is per CPU
# (SA23-2260, "State of Counter Set", "Coprocessor-Group Counter Set", EPCTR/SPCTR
# programming note, QCTRI programming note 2). CPU 0 enables and activates the groups and
# sets counter 5; CPU 1 reads it; then the operator unauthorizes CPU 1 for the groups
# (DIAGNOSE 8) and CPU 1 sees them unauthorized and cannot change the global controls;
# CPU 0 still reads its counter.
# Cases and records: script.inc; expectations: the CASE lines (tests/counter_script.rs).
#   0x3000 QCTRI of CPU 1 unauthorized, 0x3040 QCTRI of CPU 0 at the end,
#   0x3100 phase word, 0x3180 EPCTR values (CPU 1, CPU 0), 0x31C0.. STAP slots,
#   0x33F0 number of the last case, 0x4000.. records
        .include "script.inc"
        .align 8
cgon:   .quad 3

        .balign 8
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        CPU_ADDRESS %r0, 0x1f0, 0x1c0
        ltr   %r0,%r0
        jnz   cpu1
        mvc   0x1c0(16),svcpsw-0x1000(%r12)
        CASE 1, "cc 0", "CPU 0: LPCTL enable and activate the groups"
        lpctl cgon-0x1000(%r12)
        REC
        CASE 2, "cc 0", "CPU 0: SPCTR group 0 counter 5"
        lghi  %r2,5
        lghi  %r6,99
        spctr %r6,%r2
        REC
        mvhi  0x100(%r13),1                     # phase 1: CPU 1's turn
1:      l     %r0,0x100(%r13)
        chi   %r0,2
        jl    1b
        CASE 3, "cc 0", "CPU 0: EPCTR 5 after CPU 1's LPCTL of zeros while unauthorized"
        lghi  %r2,5
        lghi  %r4,-1
        epctr %r4,%r2
        REC
        stg   %r4,0x188(%r13)
        qctri 0x40(%r13)
        mvhi  0x3f0(%r13),8
        DONE

cpu1:   l     %r0,0x100(%r13)
        chi   %r0,1
        jl    cpu1
        CASE 4, "cc 0", "CPU 1: EPCTR 5 set by CPU 0 (any authorized CPU may extract)"
        lghi  %r2,5
        lghi  %r4,-1
        epctr %r4,%r2
        REC
        stg   %r4,0x180(%r13)
        OPER  "hcpumf auth counters=b,p,c,e cpu=1"
        CASE 5, "cc 3", "CPU 1 unauthorized for the groups: EPCTR not available"
        lghi  %r2,5
        epctr %r4,%r2
        REC
        CASE 6, "cc 3", "CPU 1 unauthorized: SPCTR not available"
        spctr %r4,%r2
        REC
        qctri 0(%r13)
        CASE 7, "cc 0", "CPU 1 unauthorized: LPCTL zeros is the same state, nothing changes"
        lpctl zero-0x1000(%r12)
        REC
        CASE 8, "cc 3", "CPU 1 unauthorized: LPCTL enable and activate needs external control"
        lpctl cgon-0x1000(%r12)
        REC
        mvhi  0x100(%r13),2
        lpswe idle-0x1000(%r12)
        .align 8
idle:   .quad 0x0002000180000000, 0x1d1e
