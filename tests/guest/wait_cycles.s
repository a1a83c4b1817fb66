# The cycle counter does not grow while the CPU sits in an enabled wait: cycles before and
# after a wait of about 0.3 s ended by a clock-comparator interruption.
#   0x00 cycles before, 0x08 after, 0x10 TOD before, 0x18 TOD after
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000                  # code base (constants: X-0x1000(%r12))
        lcctl ctls-0x1000(%r12)
        mvc   0x1b0(16),extpsw-0x1000(%r12)   # external new PSW -> woke
        stctg %c0,%c0,0x40(%r13)
        oi    0x46(%r13),0x08                 # CR0 bit 52: clock-comparator subclass
        lctlg %c0,%c0,0x40(%r13)
        stck  0x10(%r13)
        lg    %r2,0x10(%r13)
        algfi %r2,0x4B000000                  # ~0.3 s of TOD units (2^12 per us)
        stg   %r2,0x48(%r13)
        sckc  0x48(%r13)
        lghi  %r3,0
        ecctr %r4,%r3
        stg   %r4,0x00(%r13)
        lpswe waitpsw2-0x1000(%r12)
woke:   ecctr %r5,%r3
        stg   %r5,0x08(%r13)
        stck  0x18(%r13)
        DONE
        .align 8
ctls:   .quad 0x0000000000020002
waitpsw2: .quad 0x0102000180000000, 0      # enabled (external) wait
extpsw: .quad 0x0000000180000000, woke
