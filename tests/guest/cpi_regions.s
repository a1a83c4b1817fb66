# Two code regions of very different cost per instruction, each measured with the basic
# counter set (ECCTR before and after): COSTLY at 0x10000 (MVC of 256 bytes, BRCTG) and
# CHEAP at 0x20000 (AHI, BRCTG). A host HIS run samples them; the test compares each
# region's sample CPI (busy samples / sum of U) with the CPI its counters measured.
#   0x00/0x08 cycles/instructions of COSTLY, 0x10/0x18 of CHEAP, 0x20 LCCTL cc
        .include "lowcore.inc"
        .set COSTLY_N, 15000000
        .set CHEAP_N, 80000000
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lcctl ctls-0x1000(%r12)            # enable + activate the basic set
        ipm   %r1
        st    %r1,0x20(%r13)
        lghi  %r2,1                        # instruction count
        lghi  %r3,0                        # cycle count
        ecctr %r4,%r3
        ecctr %r5,%r2
        brasl %r14,costly
        ecctr %r7,%r3
        ecctr %r8,%r2
        sgr   %r7,%r4
        sgr   %r8,%r5
        stg   %r7,0x00(%r13)
        stg   %r8,0x08(%r13)
        ecctr %r4,%r3
        ecctr %r5,%r2
        brasl %r14,cheap
        ecctr %r7,%r3
        ecctr %r8,%r2
        sgr   %r7,%r4
        sgr   %r8,%r5
        stg   %r7,0x10(%r13)
        stg   %r8,0x18(%r13)
        DONE
        .align 8
ctls:   .quad 0x0000000000020002           # E_b, C_b

        .org 0x10000
costly: llilf %r6,COSTLY_N
        lghi  %r9,0x5000
1:      mvc   0(256,%r9),0x100(%r9)
        brctg %r6,1b
        br    %r14
        .org 0x20000
cheap:  llilf %r6,CHEAP_N
1:      ahi   %r10,1
        brctg %r6,1b
        br    %r14
