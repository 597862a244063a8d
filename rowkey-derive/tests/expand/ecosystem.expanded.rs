///A skip-scan filter on [`Session`] keys under construction: `Session::filter()`, one method per field, then `build()`.
#[must_use = "a filter does nothing until `build()` and a scan use it"]
#[allow(dead_code)]
struct SessionFilter(::rowkey_core::__private::FilterParts);
const _: () = {
    use ::rowkey_core::__private::{self as __rk, traits::*};
    type __K0 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K1 = __rk::Ts<__rk::Millis, __rk::DescTs>;
    type __K2 = __rk::Ts<__rk::Micros, __rk::Fixed<__rk::Asc, __rk::Fwd>>;
    const __FIELDS: &[__rk::FieldLayout] = &[
        __rk::field!(
            "id", "Uuid", BigEndian { desc : false }, < __K0 as __Codec < Uuid >>
            ::LAYOUT_WIDTH, __rk::read_opaque:: < __K0, Uuid >, 0, 0
        )
            .__key_field(<__K0 as __Codec<Uuid>>::KEY_FIELD),
        __rk::field!(
            "at", "DateTime<Utc>", DescTs, < __K1 as __Codec < DateTime < Utc > >>
            ::LAYOUT_WIDTH, __rk::read_opaque:: < __K1, DateTime < Utc > >, 0, 0, Millis
        ),
        __rk::field!(
            "seen", "jiff::Timestamp", BigEndian { desc : false }, < __K2 as __Codec <
            jiff::Timestamp >> ::LAYOUT_WIDTH, __rk::read_opaque:: < __K2,
            jiff::Timestamp >, 0, 0, Micros
        ),
    ];
    __rk::layout!("Session", Binary, b"");
    #[automatically_derived]
    impl __rk::RowKey for Session {
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
            let __p1 = __K0::encode(&self.id, __out, 0, "id")?;
            let __p2 = __K1::encode(&self.at, __out, __p1, "at")?;
            let __p3 = __K2::encode(&self.seen, __out, __p2, "seen")?;
            __rk::Result::Ok(__p3)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for Session {
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            __rk::decode_fixed(
                __input,
                Self::LEN,
                |__input: &'__de [u8]| {
                    let (__v0, __p) = __K0::decode(__input, 0, "id")?;
                    let (__v1, __p) = __K1::decode(__input, __p, "at")?;
                    let (__v2, __p) = __K2::decode(__input, __p, "seen")?;
                    __rk::finish(__input, __p)?;
                    __rk::Result::Ok(Self {
                        id: __v0,
                        at: __v1,
                        seen: __v2,
                    })
                },
            )
        }
    }
    __rk::if_alloc! {
        #[automatically_derived] impl SessionFilter { #[doc =
        "Only keys whose `id` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn id < __P : __rk::FieldPredicate < Uuid > > (self, id : __P) ->
        Self { SessionFilter(__K0::constrain(self.0, 0, id, "id", __rk::PhantomData)) }
        #[doc =
        "Only keys whose `at` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn at < __P : __rk::FieldPredicate < DateTime < Utc > > > (self, at
        : __P) -> Self { SessionFilter(__K1::constrain(self.0, 1, at, "at",
        __rk::PhantomData)) } #[doc =
        "Only keys whose `seen` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn seen < __P : __rk::FieldPredicate < jiff::Timestamp > > (self,
        seen : __P) -> Self { SessionFilter(__K2::constrain(self.0, 2, seen, "seen",
        __rk::PhantomData)) } #[doc =
        r" The filter, or the first predicate value that cannot be encoded"] #[doc =
        r" (a `#[fixed]` string that is too long, a timestamp out of range)."] #[inline]
        pub fn build(self) -> __rk::Result < __rk::KeyFilter, __rk::EncodeError > { let
        __parts = self.0; __parts.build() } }
    }
    #[automatically_derived]
    impl Session {
        /// The length of every key of this layout, in bytes.
        pub const LEN: usize = <__K0 as __Codec<Uuid>>::WIDTH
            + <__K1 as __Codec<DateTime<Utc>>>::WIDTH
            + <__K2 as __Codec<jiff::Timestamp>>::WIDTH;
        /// The key as a fixed-size array, or the field that cannot be encoded.
        #[inline(always)]
        pub fn try_encode(&self) -> __rk::Result<[u8; Self::LEN], __rk::EncodeError> {
            let mut __buf = [0u8; Self::LEN];
            __rk::RowKey::encode_into(self, &mut __buf).map(|_| __buf)
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
        fn __rk_prefix1(id: Uuid) -> __rk::Leading {
            __rk::infallible(__K0::extend(__rk::Leading::unsalted(), &id, "id"))
        }
        ///Every row whose `id` is the given value.
        #[inline]
        pub fn scan_by_id(id: Uuid) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix1(id))
        }
        ///Every row whose `id` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_id(range: impl __rk::RangeBounds<Uuid>) -> __rk::Scan {
            __rk::infallible(__K0::scan_range(__rk::Leading::unsalted(), &range, "id"))
        }
        #[inline]
        fn __rk_prefix2(
            id: Uuid,
            at: DateTime<Utc>,
        ) -> __rk::Result<__rk::Leading, __rk::EncodeError> {
            __K1::extend(Self::__rk_prefix1(id), &at, "at")
        }
        ///Every row whose `id` and `at` are the given values.
        #[inline]
        pub fn scan_by_id_at(
            id: Uuid,
            at: DateTime<Utc>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            Self::__rk_prefix2(id, at).map(__rk::Leading::scan_eq)
        }
        ///Every row whose `id` is the given value and whose `at` is in `range`. The field sorts descending: the rows come largest (newest) first. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_id_at(
            id: Uuid,
            range: impl __rk::RangeBounds<DateTime<Utc>>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K1::scan_range(Self::__rk_prefix1(id), &range, "at")
        }
        ///Every row whose `id`, `at` and `seen` are the given values.
        #[inline]
        pub fn scan_by_id_at_seen(
            id: Uuid,
            at: DateTime<Utc>,
            seen: jiff::Timestamp,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K2::extend(Self::__rk_prefix2(id, at)?, &seen, "seen")
                .map(__rk::Leading::scan_eq)
        }
        ///Every row whose `id` and `at` are the given values and whose `seen` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_id_at_seen(
            id: Uuid,
            at: DateTime<Utc>,
            range: impl __rk::RangeBounds<jiff::Timestamp>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K2::scan_range(Self::__rk_prefix2(id, at)?, &range, "seen")
        }
        ///A skip-scan filter on this key's fields: `Session::filter().field(predicate)...build()` gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, `seek_hint` and `scan`).
        #[inline]
        pub fn filter() -> SessionFilter {
            SessionFilter(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
        }
    }
    const _: () = ::core::assert!(
        <__K0 as __Codec<Uuid>>::WIDTH + <__K1 as __Codec<DateTime<Utc>>>::WIDTH
            + <__K2 as __Codec<jiff::Timestamp>>::WIDTH <= 32767,
        "row key is longer than HBase's limit of 32767 bytes (id ? + at 8 + seen 8)",
    );
};
