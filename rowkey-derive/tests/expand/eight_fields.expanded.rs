///A skip-scan filter on [`Eight`] keys under construction: `Eight::filter()`, one method per field, then `build()`.
#[must_use = "a filter does nothing until `build()` and a scan use it"]
#[allow(dead_code)]
struct EightFilter(::rowkey_core::__private::FilterParts);
#[allow(clippy::too_many_arguments)]
const _: () = {
    use ::rowkey_core::__private::{self as __rk, traits::*};
    type __K0 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K1 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K2 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K3 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K4 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K5 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K6 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K7 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    const __FIELDS: &[__rk::FieldLayout] = &[
        __rk::field!(
            "a", "u32", BigEndian { desc : false }, < __K0 as __Codec < u32 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K0, u32 >, 0, 0
        ),
        __rk::field!(
            "b", "u64", BigEndian { desc : false }, < __K1 as __Codec < u64 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K1, u64 >, 0, 0
        ),
        __rk::field!(
            "c", "i16", BigEndian { desc : false }, < __K2 as __Codec < i16 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K2, i16 >, 0, 0
        ),
        __rk::field!(
            "d", "u8", BigEndian { desc : false }, < __K3 as __Codec < u8 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K3, u8 >, 0, 0
        ),
        __rk::field!(
            "e", "u32", BigEndian { desc : false }, < __K4 as __Codec < u32 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K4, u32 >, 0, 0
        ),
        __rk::field!(
            "f", "u64", BigEndian { desc : false }, < __K5 as __Codec < u64 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K5, u64 >, 0, 0
        ),
        __rk::field!(
            "g", "i16", BigEndian { desc : false }, < __K6 as __Codec < i16 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K6, i16 >, 0, 0
        ),
        __rk::field!(
            "h", "u8", BigEndian { desc : false }, < __K7 as __Codec < u8 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K7, u8 >, 0, 0
        ),
    ];
    __rk::layout!("Eight", Binary, b"");
    #[automatically_derived]
    impl __rk::RowKey for Eight {
        const FIXED_LEN: __rk::Option<usize> = __rk::Option::Some(Self::LEN);
        const MIN_LEN: usize = Self::LEN;
        const SALT_BUCKETS: __rk::Option<u16> = __rk::Option::None;
        const LAYOUT: &'static __rk::Layout = &__LAYOUT;
        #[inline]
        fn encoded_len(&self) -> usize {
            Self::LEN
        }
        #[inline(always)]
        fn encode_into(
            &self,
            __out: &mut [u8],
        ) -> __rk::Result<usize, __rk::EncodeError> {
            let __out = __rk::output(__out, Self::LEN)?;
            let __p1 = __K0::encode(&self.a, __out, 0, "a")?;
            let __p2 = __K1::encode(&self.b, __out, __p1, "b")?;
            let __p3 = __K2::encode(&self.c, __out, __p2, "c")?;
            let __p4 = __K3::encode(&self.d, __out, __p3, "d")?;
            let __p5 = __K4::encode(&self.e, __out, __p4, "e")?;
            let __p6 = __K5::encode(&self.f, __out, __p5, "f")?;
            let __p7 = __K6::encode(&self.g, __out, __p6, "g")?;
            let __p8 = __K7::encode(&self.h, __out, __p7, "h")?;
            __rk::Result::Ok(__p8)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for Eight {
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            __rk::decode_fixed(
                __input,
                Self::LEN,
                |__input: &'__de [u8]| {
                    let (__v0, __p) = __K0::decode(__input, 0, "a")?;
                    let (__v1, __p) = __K1::decode(__input, __p, "b")?;
                    let (__v2, __p) = __K2::decode(__input, __p, "c")?;
                    let (__v3, __p) = __K3::decode(__input, __p, "d")?;
                    let (__v4, __p) = __K4::decode(__input, __p, "e")?;
                    let (__v5, __p) = __K5::decode(__input, __p, "f")?;
                    let (__v6, __p) = __K6::decode(__input, __p, "g")?;
                    let (__v7, __p) = __K7::decode(__input, __p, "h")?;
                    __rk::finish(__input, __p)?;
                    __rk::Result::Ok(Self {
                        a: __v0,
                        b: __v1,
                        c: __v2,
                        d: __v3,
                        e: __v4,
                        f: __v5,
                        g: __v6,
                        h: __v7,
                    })
                },
            )
        }
    }
    #[automatically_derived]
    impl __rk::FixedField for Eight {
        type Bytes = [u8; Eight::LEN];
        #[inline]
        fn to_key_bytes(&self) -> Self::Bytes {
            self.encode()
        }
        #[inline]
        fn from_key_bytes(__b: Self::Bytes) -> __rk::Result<Self, __rk::FieldError> {
            <Self as __rk::DecodeRowKey<'_>>::decode(&__b).map_err(__rk::nested_error)
        }
    }
    __rk::if_alloc! {
        #[automatically_derived] impl EightFilter { #[doc =
        "Only keys whose `a` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn a < __P : __rk::FieldPredicate < u32 > > (self, a : __P) -> Self
        { EightFilter(__K0::constrain(self.0, 0, a, "a", __rk::PhantomData)) } #[doc =
        "Only keys whose `b` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn b < __P : __rk::FieldPredicate < u64 > > (self, b : __P) -> Self
        { EightFilter(__K1::constrain(self.0, 1, b, "b", __rk::PhantomData)) } #[doc =
        "Only keys whose `c` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn c < __P : __rk::FieldPredicate < i16 > > (self, c : __P) -> Self
        { EightFilter(__K2::constrain(self.0, 2, c, "c", __rk::PhantomData)) } #[doc =
        "Only keys whose `d` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn d < __P : __rk::FieldPredicate < u8 > > (self, d : __P) -> Self
        { EightFilter(__K3::constrain(self.0, 3, d, "d", __rk::PhantomData)) } #[doc =
        "Only keys whose `e` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn e < __P : __rk::FieldPredicate < u32 > > (self, e : __P) -> Self
        { EightFilter(__K4::constrain(self.0, 4, e, "e", __rk::PhantomData)) } #[doc =
        "Only keys whose `f` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn f < __P : __rk::FieldPredicate < u64 > > (self, f : __P) -> Self
        { EightFilter(__K5::constrain(self.0, 5, f, "f", __rk::PhantomData)) } #[doc =
        "Only keys whose `g` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn g < __P : __rk::FieldPredicate < i16 > > (self, g : __P) -> Self
        { EightFilter(__K6::constrain(self.0, 6, g, "g", __rk::PhantomData)) } #[doc =
        "Only keys whose `h` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn h < __P : __rk::FieldPredicate < u8 > > (self, h : __P) -> Self
        { EightFilter(__K7::constrain(self.0, 7, h, "h", __rk::PhantomData)) } #[doc =
        r" The filter, or the first predicate value that cannot be encoded"] #[doc =
        r" (a `#[fixed]` string that is too long, a timestamp out of range)."] #[inline]
        pub fn build(self) -> __rk::Result < __rk::KeyFilter, __rk::EncodeError > { let
        __parts = self.0; __parts.build() } }
    }
    #[automatically_derived]
    impl Eight {
        /// The length of every key of this layout, in bytes.
        pub const LEN: usize = <__K0 as __Codec<u32>>::WIDTH
            + <__K1 as __Codec<u64>>::WIDTH + <__K2 as __Codec<i16>>::WIDTH
            + <__K3 as __Codec<u8>>::WIDTH + <__K4 as __Codec<u32>>::WIDTH
            + <__K5 as __Codec<u64>>::WIDTH + <__K6 as __Codec<i16>>::WIDTH
            + <__K7 as __Codec<u8>>::WIDTH;
        /// The key as a fixed-size array, or the field that cannot be encoded.
        #[inline(always)]
        pub fn try_encode(&self) -> __rk::Result<[u8; Self::LEN], __rk::EncodeError> {
            let mut __buf = [0u8; Self::LEN];
            __rk::RowKey::encode_into(self, &mut __buf).map(|_| __buf)
        }
        /// The key as a fixed-size array: no field of this layout can fail to encode.
        #[inline(always)]
        pub fn encode(&self) -> [u8; Self::LEN] {
            let mut __buf = [0u8; Self::LEN];
            __rk::infallible(__rk::RowKey::encode_into(self, &mut __buf));
            __buf
        }
        /// Where to pre-split the table: one region per salt bucket; none when unsalted.
        #[inline]
        pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
            __rk::Vec::new()
        }
        /// Every row of the table: one range per salt bucket when salted.
        #[inline]
        pub fn scan_all() -> __rk::Scan {
            __rk::Leading::unsalted().scan_eq()
        }
        #[inline]
        fn __rk_prefix1(a: u32) -> __rk::Leading {
            __rk::infallible(__K0::extend(__rk::Leading::unsalted(), &a, "a"))
        }
        ///Every row whose `a` is the given value.
        #[inline]
        pub fn scan_by_a(a: u32) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix1(a))
        }
        ///Every row whose `a` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_a(range: impl __rk::RangeBounds<u32>) -> __rk::Scan {
            __rk::infallible(__K0::scan_range(__rk::Leading::unsalted(), &range, "a"))
        }
        #[inline]
        fn __rk_prefix2(a: u32, b: u64) -> __rk::Leading {
            __rk::infallible(__K1::extend(Self::__rk_prefix1(a), &b, "b"))
        }
        ///Every row whose `a` and `b` are the given values.
        #[inline]
        pub fn scan_by_a_b(a: u32, b: u64) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix2(a, b))
        }
        ///Every row whose `a` is the given value and whose `b` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_a_b(a: u32, range: impl __rk::RangeBounds<u64>) -> __rk::Scan {
            __rk::infallible(__K1::scan_range(Self::__rk_prefix1(a), &range, "b"))
        }
        #[inline]
        fn __rk_prefix3(a: u32, b: u64, c: i16) -> __rk::Leading {
            __rk::infallible(__K2::extend(Self::__rk_prefix2(a, b), &c, "c"))
        }
        ///Every row whose `a`, `b` and `c` are the given values.
        #[inline]
        pub fn scan_by_a_b_c(a: u32, b: u64, c: i16) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix3(a, b, c))
        }
        ///Every row whose `a` and `b` are the given values and whose `c` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_a_b_c(
            a: u32,
            b: u64,
            range: impl __rk::RangeBounds<i16>,
        ) -> __rk::Scan {
            __rk::infallible(__K2::scan_range(Self::__rk_prefix2(a, b), &range, "c"))
        }
        #[inline]
        fn __rk_prefix4(a: u32, b: u64, c: i16, d: u8) -> __rk::Leading {
            __rk::infallible(__K3::extend(Self::__rk_prefix3(a, b, c), &d, "d"))
        }
        ///Every row whose `a`, `b`, `c` and `d` are the given values.
        #[inline]
        pub fn scan_by_a_b_c_d(a: u32, b: u64, c: i16, d: u8) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix4(a, b, c, d))
        }
        ///Every row whose `a`, `b` and `c` are the given values and whose `d` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_a_b_c_d(
            a: u32,
            b: u64,
            c: i16,
            range: impl __rk::RangeBounds<u8>,
        ) -> __rk::Scan {
            __rk::infallible(__K3::scan_range(Self::__rk_prefix3(a, b, c), &range, "d"))
        }
        #[inline]
        fn __rk_prefix5(a: u32, b: u64, c: i16, d: u8, e: u32) -> __rk::Leading {
            __rk::infallible(__K4::extend(Self::__rk_prefix4(a, b, c, d), &e, "e"))
        }
        ///Every row whose `a`, `b`, `c`, `d` and `e` are the given values.
        #[inline]
        pub fn scan_by_a_b_c_d_e(a: u32, b: u64, c: i16, d: u8, e: u32) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix5(a, b, c, d, e))
        }
        ///Every row whose `a`, `b`, `c` and `d` are the given values and whose `e` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_a_b_c_d_e(
            a: u32,
            b: u64,
            c: i16,
            d: u8,
            range: impl __rk::RangeBounds<u32>,
        ) -> __rk::Scan {
            __rk::infallible(
                __K4::scan_range(Self::__rk_prefix4(a, b, c, d), &range, "e"),
            )
        }
        #[inline]
        fn __rk_prefix6(a: u32, b: u64, c: i16, d: u8, e: u32, f: u64) -> __rk::Leading {
            __rk::infallible(__K5::extend(Self::__rk_prefix5(a, b, c, d, e), &f, "f"))
        }
        ///Every row whose `a`, `b`, `c`, `d`, `e` and `f` are the given values.
        #[inline]
        pub fn scan_by_a_b_c_d_e_f(
            a: u32,
            b: u64,
            c: i16,
            d: u8,
            e: u32,
            f: u64,
        ) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix6(a, b, c, d, e, f))
        }
        ///Every row whose `a`, `b`, `c`, `d` and `e` are the given values and whose `f` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_a_b_c_d_e_f(
            a: u32,
            b: u64,
            c: i16,
            d: u8,
            e: u32,
            range: impl __rk::RangeBounds<u64>,
        ) -> __rk::Scan {
            __rk::infallible(
                __K5::scan_range(Self::__rk_prefix5(a, b, c, d, e), &range, "f"),
            )
        }
        #[inline]
        fn __rk_prefix7(
            a: u32,
            b: u64,
            c: i16,
            d: u8,
            e: u32,
            f: u64,
            g: i16,
        ) -> __rk::Leading {
            __rk::infallible(__K6::extend(Self::__rk_prefix6(a, b, c, d, e, f), &g, "g"))
        }
        ///Every row whose `a`, `b`, `c`, `d`, `e`, `f` and `g` are the given values.
        #[inline]
        pub fn scan_by_a_b_c_d_e_f_g(
            a: u32,
            b: u64,
            c: i16,
            d: u8,
            e: u32,
            f: u64,
            g: i16,
        ) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix7(a, b, c, d, e, f, g))
        }
        ///Every row whose `a`, `b`, `c`, `d`, `e` and `f` are the given values and whose `g` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_a_b_c_d_e_f_g(
            a: u32,
            b: u64,
            c: i16,
            d: u8,
            e: u32,
            f: u64,
            range: impl __rk::RangeBounds<i16>,
        ) -> __rk::Scan {
            __rk::infallible(
                __K6::scan_range(Self::__rk_prefix6(a, b, c, d, e, f), &range, "g"),
            )
        }
        ///Every row whose `a`, `b`, `c`, `d`, `e`, `f`, `g` and `h` are the given values.
        #[inline]
        pub fn scan_by_a_b_c_d_e_f_g_h(
            a: u32,
            b: u64,
            c: i16,
            d: u8,
            e: u32,
            f: u64,
            g: i16,
            h: u8,
        ) -> __rk::Scan {
            __rk::Leading::scan_eq(
                __rk::infallible(
                    __K7::extend(Self::__rk_prefix7(a, b, c, d, e, f, g), &h, "h"),
                ),
            )
        }
        ///Every row whose `a`, `b`, `c`, `d`, `e`, `f` and `g` are the given values and whose `h` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_a_b_c_d_e_f_g_h(
            a: u32,
            b: u64,
            c: i16,
            d: u8,
            e: u32,
            f: u64,
            g: i16,
            range: impl __rk::RangeBounds<u8>,
        ) -> __rk::Scan {
            __rk::infallible(
                __K7::scan_range(Self::__rk_prefix7(a, b, c, d, e, f, g), &range, "h"),
            )
        }
        ///A skip-scan filter on this key's fields: `Eight::filter().field(predicate)...build()` gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, `seek_hint` and `scan`).
        #[inline]
        pub fn filter() -> EightFilter {
            EightFilter(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
        }
    }
};
