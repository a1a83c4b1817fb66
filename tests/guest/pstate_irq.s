# Problem-state share when the switches come from interruptions (how Linux enters its
# kernel on timer ticks): a problem-state loop of 300,000,000 BRCTGs is interrupted by the
# CPU timer about every 0.5 ms; each interruption runs 100,000 supervisor BRCTGs and returns
# with LPSWE. The guest counts the interruptions so the test knows the truth.
#   0x00/0x08 basic instructions before/after, 0x10/0x18 problem-state instructions,
#   0x20 interruptions
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        mvc   0x1b0(16),extpsw-0x1000(%r12)   # external new PSW -> tick
        mvc   0x1c0(16),svcpsw-0x1000(%r12)   # SVC new PSW -> back
        lcctl ctls-0x1000(%r12)
        stctg %c0,%c0,0x40(%r13)
        oi    0x46(%r13),0x04                 # CR0 bit 53: CPU-timer subclass
        lctlg %c0,%c0,0x40(%r13)
        spt   slice-0x1000(%r12)
        lghi  %r2,1
        lghi  %r3,33
        ecctr %r4,%r2
        ecctr %r5,%r3
        stg   %r4,0x00(%r13)
        stg   %r5,0x10(%r13)
        llilf %r6,300000000
        lpswe prob-0x1000(%r12)
user:   brctg %r6,user
        svc   0
back:   ecctr %r4,%r2
        ecctr %r5,%r3
        stg   %r4,0x08(%r13)
        stg   %r5,0x18(%r13)
        DONE
tick:   stmg  %r0,%r15,0x700
        lg    %r1,0x20(%r13)
        aghi  %r1,1
        stg   %r1,0x20(%r13)
        llilf %r7,100000
1:      brctg %r7,1b
        spt   slice-0x1000(%r12)
        lmg   %r0,%r15,0x700
        lpswe 0x130
        .align 8
ctls:   .quad 0x0000000000060006
slice:  .quad 0x00000000001F4000              # 0.5 ms of CPU timer
prob:   .quad 0x0101000180000000, user        # problem state, external mask on
extpsw: .quad 0x0000000180000000, tick
svcpsw: .quad 0x0000000180000000, back
