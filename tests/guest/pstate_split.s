# Problem-state share: 300 rounds of 300,000 supervisor-state BRCTGs followed by 700,000
# problem-state BRCTGs (entered with LPSWE, left with SVC): about 300 switches per second.
#   0x00/0x08 basic instructions before/after, 0x10/0x18 problem-state instructions
#   before/after, 0x20/0x28 basic cycles, 0x30/0x38 problem-state cycles
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000                  # code base (constants: X-0x1000(%r12))
        mvc   0x1c0(16),svcpsw-0x1000(%r12)   # SVC new PSW -> back
        lcctl ctls-0x1000(%r12)               # basic + problem-state sets active
        lghi  %r2,1
        lghi  %r3,33
        lghi  %r9,0
        lghi  %r10,32
        ecctr %r4,%r2
        ecctr %r5,%r3
        ecctr %r11,%r9
        ecctr %r8,%r10
        stg   %r4,0x00(%r13)
        stg   %r5,0x10(%r13)
        stg   %r11,0x20(%r13)
        stg   %r8,0x30(%r13)
        lghi  %r7,300                         # rounds
round:  llilf %r6,300000
sup:    brctg %r6,sup
        llilf %r6,700000
        lpswe prob-0x1000(%r12)
user:   brctg %r6,user
        svc   0
back:   brctg %r7,round
        ecctr %r4,%r2
        ecctr %r5,%r3
        ecctr %r11,%r9
        ecctr %r8,%r10
        stg   %r4,0x08(%r13)
        stg   %r5,0x18(%r13)
        stg   %r11,0x28(%r13)
        stg   %r8,0x38(%r13)
        DONE
        .align 8
ctls:   .quad 0x0000000000060006              # E_p E_b, C_p C_b
prob:   .quad 0x0001000180000000, user        # problem state
svcpsw: .quad 0x0000000180000000, back
