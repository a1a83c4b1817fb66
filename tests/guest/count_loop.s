# Accuracy of the basic counter set: instructions and cycles over a loop of 100,000,000
# BRCTG instructions, compared with the TOD clock (STCK) around it.
#   0x00 instructions before, 0x08 after, 0x10 cycles before, 0x18 after,
#   0x20 TOD before, 0x28 TOD after, 0x30 LCCTL cc
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000                  # code base (constants: X-0x1000(%r12))
        lcctl ctls-0x1000(%r12)            # enable + activate the basic set
        ipm   %r1
        st    %r1,0x30(%r13)
        lghi  %r2,1
        lghi  %r3,0
        stck  0x20(%r13)
        ecctr %r4,%r2                      # instruction count
        ecctr %r5,%r3                      # cycle count
        llilf %r6,100000000
loop:   brctg %r6,loop
        ecctr %r7,%r3                      # 3 instructions after the loop: ECCTR, ECCTR
        ecctr %r8,%r2
        stck  0x28(%r13)
        stg   %r4,0x00(%r13)
        stg   %r8,0x08(%r13)
        stg   %r5,0x10(%r13)
        stg   %r7,0x18(%r13)
        DONE
        .align 8
ctls:   .quad 0x0000000000020002           # E_b, C_b
