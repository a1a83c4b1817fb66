# S/370 (MVS 3.8J's architecture) with `archs=all`: a HIS-like program that polls instead
# of taking measurement alerts (MVS 3.8J has no handler for 1407). It builds a
# sample-data-block table with one 4-KB block whose trailer has A = 0 and a table link back
# to the table, starts basic sampling at the QSI maximum rate (minimum interval) with the
# PSW external mask off, loads a program parameter with LPP, spins in a BCT loop at 0x103C,
# and reads the state with QSI. The block fills and further samples are counted in its
# overflow count; no interruption is requested.
#   0x3000 QSI before, 0x3040 QSI after, 0x3080 LSCTL request, 0x7FC program-check count
        .include "s370.inc"
        qsi   0(%r13)
        mvc   0x80(32,%r13),req-0x1000(%r12)
        mvc   0x88(8,%r13),0x08(%r13)         # the minimum interval
        lsctl 0x80(%r13)
        lpp   pp-0x1000(%r12)                 # (a no-op until a function is enabled)
        l     %r6,count-0x1000(%r12)
loop:   bct   %r6,loop-0x1000(%r12)
        qsi   0x40(%r13)
        lpsw  waitpsw
        .align 8
pp:     .quad 0x00000000C0DE1234
count:  .long 30000000
req:    .quad 0x0000000000000202              # S = 0, H = 0, Es = 1, Cs = 1
        .quad 0                               # interval (the minimum, filled in)
        .quad 0x10000                         # TEAR: the table
        .quad 0x11000                         # DEAR: the block
        .org 0x10000
sdbt:   .quad 0x11000                         # block
        .quad 0x10001                         # table link back to the table
        .org 0x11000
block:  .skip 4096
