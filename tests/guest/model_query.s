# What the machine model looks like to a guest: QCTRI (CFVN, CSVN) at 0x3000, QSI (the CPU
# speed in bytes 44-47, the interval limits) at 0x3040, STIDP (the machine type) at 0x3080.
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        qctri 0(%r13)
        .insn s,0xb2860000,0x40(%r13)         # QSI
        stidp 0x80(%r13)
        DONE
