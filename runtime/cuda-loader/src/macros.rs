//! The patterns every generated enum, flag type, handle, record and raw function repeats,
//! written once (as `ash` does in its `vk/macros.rs`). The generated files state what differs
//! from item to item (names, values, documentation) as plain Rust and call these macros for
//! the rest; a generated crate brings them in with `#[macro_use] extern crate cuda_loader;`.
//! [`c_flags!`](crate::c_flags) names `::bitflags`, a dependency of the crate that calls it.

/// The methods and `Debug` of a C enum newtype `$ty(pub $repr)` whose `name()` the generated
/// code defines: `from_raw`, `as_raw`, and `Debug` printing the C name or `Type(value)`.
#[macro_export]
macro_rules! c_enum {
    ($ty:ident, $repr:ty) => {
        impl $ty {
            /// Wraps a raw C value, known or not.
            #[inline]
            pub const fn from_raw(raw: $repr) -> Self {
                Self(raw)
            }

            /// The raw C value.
            #[inline]
            pub const fn as_raw(self) -> $repr {
                self.0
            }
        }

        impl ::core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    ::core::option::Option::Some(name) => f.write_str(name),
                    ::core::option::Option::None => {
                        write!(f, "{}({})", stringify!($ty), self.0)
                    }
                }
            }
        }
    };
}

/// The operators, constructors and queries of a flag type `$ty($bits)` that implements
/// `bitflags::Flags` (the generated code states its members): `|`, `&`, `^`, `-`, `!` and
/// their assignments, `empty`, `all`, `bits`, `from_bits`, `from_bits_retain`,
/// `from_bits_truncate`, `contains`, `intersects`, `insert`, `remove`, `is_empty`, and a
/// `Debug` listing the member names (`HOST_TO_DEVICE | 0x40` for unknown bits).
#[macro_export]
macro_rules! c_flags {
    ($ty:ident, $bits:ty) => {
        impl $ty {
            /// No flag set.
            #[inline]
            pub const fn empty() -> Self {
                Self(0)
            }

            /// Every flag this crate knows.
            #[inline]
            pub fn all() -> Self {
                <Self as ::bitflags::Flags>::all()
            }

            /// The raw bits.
            #[inline]
            pub const fn bits(&self) -> $bits {
                self.0
            }

            /// The value with these bits, known or not (for values that come back from C).
            #[inline]
            pub const fn from_bits_retain(bits: $bits) -> Self {
                Self(bits)
            }

            /// The value with these bits, or `None` when one of them is unknown.
            #[inline]
            pub fn from_bits(bits: $bits) -> ::core::option::Option<Self> {
                <Self as ::bitflags::Flags>::from_bits(bits)
            }

            /// The value with these bits, unknown ones dropped.
            #[inline]
            pub fn from_bits_truncate(bits: $bits) -> Self {
                <Self as ::bitflags::Flags>::from_bits_truncate(bits)
            }

            /// Whether every bit of `other` is set here.
            #[inline]
            pub const fn contains(&self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether a bit of `other` is set here.
            #[inline]
            pub const fn intersects(&self, other: Self) -> bool {
                self.0 & other.0 != 0
            }

            /// Whether no bit is set.
            #[inline]
            pub const fn is_empty(&self) -> bool {
                self.0 == 0
            }

            /// Sets the bits of `other`.
            #[inline]
            pub fn insert(&mut self, other: Self) {
                self.0 |= other.0;
            }

            /// Clears the bits of `other`.
            #[inline]
            pub fn remove(&mut self, other: Self) {
                self.0 &= !other.0;
            }
        }

        impl ::core::ops::BitOr for $ty {
            type Output = Self;
            #[inline]
            fn bitor(self, other: Self) -> Self {
                Self(self.0 | other.0)
            }
        }

        impl ::core::ops::BitOrAssign for $ty {
            #[inline]
            fn bitor_assign(&mut self, other: Self) {
                self.0 |= other.0;
            }
        }

        impl ::core::ops::BitAnd for $ty {
            type Output = Self;
            #[inline]
            fn bitand(self, other: Self) -> Self {
                Self(self.0 & other.0)
            }
        }

        impl ::core::ops::BitAndAssign for $ty {
            #[inline]
            fn bitand_assign(&mut self, other: Self) {
                self.0 &= other.0;
            }
        }

        impl ::core::ops::BitXor for $ty {
            type Output = Self;
            #[inline]
            fn bitxor(self, other: Self) -> Self {
                Self(self.0 ^ other.0)
            }
        }

        impl ::core::ops::Sub for $ty {
            type Output = Self;
            #[inline]
            fn sub(self, other: Self) -> Self {
                Self(self.0 & !other.0)
            }
        }

        impl ::core::ops::Not for $ty {
            type Output = Self;
            #[inline]
            fn not(self) -> Self {
                Self::from_bits_truncate(!self.0)
            }
        }

        impl ::core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{}(", stringify!($ty))?;
                if self.0 == 0 {
                    f.write_str("empty")?;
                } else {
                    ::bitflags::parser::to_writer(self, &mut *f)?;
                }
                f.write_str(")")
            }
        }
    };
}

/// The constructors and `Debug` of a handle newtype `$ty(pub $ptr)` over a pointer to an
/// opaque C type: `null`, `is_null`, `as_ptr`, `Default` (null), and `Debug` as
/// `Type(0x…)`.
#[macro_export]
macro_rules! c_handle {
    ($ty:ident, $ptr:ty) => {
        impl $ty {
            /// The null handle (for streams: the legacy default stream).
            #[inline]
            pub const fn null() -> Self {
                Self(::core::ptr::null_mut::<()>() as _)
            }

            /// Whether this is the null handle.
            #[inline]
            pub fn is_null(self) -> bool {
                self.0.is_null()
            }

            /// The raw pointer.
            #[inline]
            pub const fn as_ptr(self) -> $ptr {
                self.0
            }
        }

        impl ::core::default::Default for $ty {
            #[inline]
            fn default() -> Self {
                Self::null()
            }
        }

        impl ::core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{}({:p})", stringify!($ty), self.0)
            }
        }
    };
}

/// `Default` as all bytes zero for C records whose fields are all integers, floats, raw
/// pointers, nullable function pointers, enums, handles, arrays or records of those.
#[macro_export]
macro_rules! zeroed_default {
    ($($ty:ident),* $(,)?) => {
        $(
            impl ::core::default::Default for $ty {
                /// All bytes zero: null pointers, zero sizes, the zero value of each enum.
                #[inline]
                fn default() -> Self {
                    // SAFETY: the generator calls this macro only for records whose fields
                    // all accept the all-zero bit pattern (see the macro's documentation).
                    unsafe { ::core::mem::zeroed() }
                }
            }
        )*
    };
}

/// The body of a raw function of a generated crate: resolve the C symbol `$symbol` once
/// (cached in a static of the crate's `loader::LazySymbol`, which names the crate's
/// [`Loader`](crate::Loader) and callback mask) and call it with the arguments, or return the
/// loader's error; `$since` is the first runtime version declaring it (`13040`; 0 for every
/// runtime of the major), checked when resolving. `crate` here is the calling crate.
#[macro_export]
#[allow(clippy::crate_in_macro_def)] // `crate` is meant: the calling crate's loader
macro_rules! dynamic_call {
    ($symbol:literal, $since:literal, fn($($arg:ident: $ty:ty),*) -> $ret:ty) => {{
        type FnPtr = unsafe extern "C" fn($($ty),*) -> $ret;
        // SAFETY: `FnPtr` is the C declaration of `$symbol` for this crate's CUDA release, as
        // the ABI (the release's own headers) states it.
        static SYMBOL: crate::loader::LazySymbol<FnPtr> =
            unsafe { crate::loader::LazySymbol::new($symbol, $since) };
        let c_fn = SYMBOL.get()?;
        // SAFETY: the enclosing function is `unsafe`: its caller upholds the C function's
        // contract for every argument.
        Ok(unsafe { c_fn($($arg),*) })
    }};
}
