//! PTX kernels the GPU suites share, written by hand (no CUDA compiler at build time).

/// `add_one(u32* data, u32 n)`: `data[i] += 1` for `i < n` (PTX 7.0, sm_70: the driver compiles
/// it for the GPU at hand). Used by `gpu`, `gpu_safe` and `gpu_multi`.
pub const ADD_ONE_PTX: &str = r"
.version 7.0
.target sm_70
.address_size 64
.visible .entry add_one(.param .u64 pdata, .param .u32 pn)
{
    .reg .pred %p1;
    .reg .b32 %r<8>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [pdata];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r6, [%rd4];
    add.s32 %r7, %r6, 1;
    st.global.u32 [%rd4], %r7;
DONE:
    ret;
}
";
