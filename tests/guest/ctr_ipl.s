# NUMCPU 2: every CPU enables and activates its basic counter set, then CPU 0 waits for the
# others and ends (disabled wait); the others end in a disabled wait of their own. The
# tests' operator then resets, IPLs or reconfigures CPUs and looks at each CPU's counter
# sets with `hcpumf status`.
# With a nonzero word at 0x3F00 (set before the restart), CPU 0 first takes CPU 1 out of the
# configuration and brings it back with the SCLP commands Linux's CPU hotplug uses (SERVICE
# CALL "deconfigure CPU" 0x00100001 and "configure CPU" 0x00110001, the CPU address in bits
# 16-23), taking the service-signal external interruption after each:
#   0x3000: SERVC condition codes (deconfigure, configure), words
#   0x3008: SCCB response codes (reason and response bytes) after each, halfwords
        .include "lowcore.inc"
start:  lghi  %r13,0x3000
        lghi  %r12,0x1000
        lcctl ctls-0x1000(%r12)
        CPU_ADDRESS %r0, 0x100, 0x110
        ltr   %r0,%r0
        jz    2f
        lpswe idle-0x1000(%r12)
2:      l     %r0,0x100(%r13)
        chi   %r0,2
        jl    2b
        lt    %r0,0xf00(%r13)
        jz    1f
        # The service-signal subclass (CR0 bit 54, 0x200 in the low word) and external
        # interruptions on: each SCLP command ends with a service signal, and Hercules
        # answers busy (cc 2) to the next one while it is pending.
        stctg %c0,%c0,0x200(%r13)
        oi    0x206(%r13),0x02
        lctlg %c0,%c0,0x200(%r13)
        llilf %r4,0x00100101                # deconfigure CPU 1
        lghi  %r6,0
        bras  %r14,sclp
        llilf %r4,0x00110101                # configure CPU 1
        lghi  %r6,4
        bras  %r14,sclp
1:      DONE

# SERVC with command R4 and the SCCB at 0x5000 (8 bytes: a bare header, as Linux's
# cpu_configure_sccb); the condition code to 0x3000+R6, the SCCB's reason and response to
# 0x3008+R6/2. Waits, enabled for external interruptions, until the service signal has
# been taken.
sclp:   lghi  %r2,0x5000
        xc    0(8,%r2),0(%r2)
        mvi   1(%r2),8                      # SCCB length 8
        lg    %r7,0x3bf8                    # external interruptions so far
        .insn rre,0xb2200000,%r4,%r2        # SERVC (no mnemonic in binutils)
        ipm   %r0
        srl   %r0,28
        st    %r0,0(%r6,%r13)
        srlg  %r5,%r6,1
        la    %r5,8(%r5,%r13)
        mvc   0(2,%r5),6(%r2)
        ltr   %r0,%r0
        jnz   4f                            # not accepted: no service signal comes
        stosm 0x208(%r13),0x01              # external interruptions on
3:      clg   %r7,0x3bf8
        je    3b
        stnsm 0x208(%r13),0xfe
4:      br    %r14

        .align 8
ctls:   .quad 0x0000000000020002
idle:   .quad 0x0002000180000000, 0x1d1e
