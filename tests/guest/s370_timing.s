# Timing code on MVS 3.8J (docs/mvs-timing.md): an S/370 EC-mode problem-state program reads
# its CPU's cycle and instruction counters with ECCTR before and after a loop of 100,000
# BCTs, after the operator has loaded the counter controls from the console (`hcpumf lcctl
# counters=b extract=yes`); the supervisor issues no LCCTL at all.
#   0x3000 cycles before, 0x3004 instructions before, 0x3008 cycles after,
#   0x300C instructions after (low words), 0x3010 IPM after the last ECCTR
#   0x800.. program-interruption codes, a fullword each (count at 0x7FC)
        .include "s370.inc"
        mvc   0x60(8,%r0),svcnew-0x1000(%r12)  # SVC new PSW: back to the supervisor
        lpsw  probpsw-0x1000(%r12)
prob:   la    %r2,0                            # counter 0: cycles
        ecctr %r4,%r2
        st    %r4,0(%r13)
        la    %r2,1                            # counter 1: instructions
        ecctr %r4,%r2
        st    %r4,4(%r13)
        l     %r3,count-0x1000(%r12)
loop:   bct   %r3,loop-0x1000(%r12)
        la    %r2,0
        ecctr %r4,%r2
        st    %r4,8(%r13)
        la    %r2,1
        ecctr %r4,%r2
        ipm   %r5
        st    %r4,12(%r13)
        st    %r5,16(%r13)
        svc   0
back:   lpsw  waitpsw
        .align 8
probpsw: .long 0x00090000, prob                # EC mode, problem state
svcnew: .long 0x00080000, back
count:  .long 100000
