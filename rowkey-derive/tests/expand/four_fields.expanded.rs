///A skip-scan filter on [`Four`] keys under construction: `Four::filter()`, one method per field, then `build()`.
#[must_use = "a filter does nothing until `build()` and a scan use it"]
#[allow(dead_code)]
struct FourFilter(::rowkey_core::__private::FilterParts);
const _: () = {
    use ::rowkey_core::__private::{self as __rk, traits::*};
    type __K0 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K1 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K2 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K3 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
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
    ];
    __rk::layout!("Four", Binary, b"");
    #[automatically_derived]
    impl __rk::RowKey for Four {
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
            __rk::Result::Ok(__p4)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for Four {
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
                    __rk::finish(__input, __p)?;
                    __rk::Result::Ok(Self {
                        a: __v0,
                        b: __v1,
                        c: __v2,
                        d: __v3,
                    })
                },
            )
        }
    }
    #[automatically_derived]
    impl __rk::FixedField for Four {
        type Bytes = [u8; Four::LEN];
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
        #[automatically_derived] impl FourFilter { #[doc =
        "Only keys whose `a` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn a < __P : __rk::FieldPredicate < u32 > > (self, a : __P) -> Self
        { FourFilter(__K0::constrain(self.0, 0, a, "a", __rk::PhantomData)) } #[doc =
        "Only keys whose `b` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn b < __P : __rk::FieldPredicate < u64 > > (self, b : __P) -> Self
        { FourFilter(__K1::constrain(self.0, 1, b, "b", __rk::PhantomData)) } #[doc =
        "Only keys whose `c` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn c < __P : __rk::FieldPredicate < i16 > > (self, c : __P) -> Self
        { FourFilter(__K2::constrain(self.0, 2, c, "c", __rk::PhantomData)) } #[doc =
        "Only keys whose `d` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn d < __P : __rk::FieldPredicate < u8 > > (self, d : __P) -> Self
        { FourFilter(__K3::constrain(self.0, 3, d, "d", __rk::PhantomData)) } #[doc =
        r" The filter, or the first predicate value that cannot be encoded"] #[doc =
        r" (a `#[fixed]` string that is too long, a timestamp out of range)."] #[inline]
        pub fn build(self) -> __rk::Result < __rk::KeyFilter, __rk::EncodeError > { let
        __parts = self.0; __parts.build() } }
    }
    #[automatically_derived]
    impl Four {
        /// The length of every key of this layout, in bytes.
        pub const LEN: usize = <__K0 as __Codec<u32>>::WIDTH
            + <__K1 as __Codec<u64>>::WIDTH + <__K2 as __Codec<i16>>::WIDTH
            + <__K3 as __Codec<u8>>::WIDTH;
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
        ///Every row whose `a`, `b`, `c` and `d` are the given values.
        #[inline]
        pub fn scan_by_a_b_c_d(a: u32, b: u64, c: i16, d: u8) -> __rk::Scan {
            __rk::Leading::scan_eq(
                __rk::infallible(__K3::extend(Self::__rk_prefix3(a, b, c), &d, "d")),
            )
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
        ///A skip-scan filter on this key's fields: `Four::filter().field(predicate)...build()` gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, `seek_hint` and `scan`).
        #[inline]
        pub fn filter() -> FourFilter {
            FourFilter(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
        }
    }
};
