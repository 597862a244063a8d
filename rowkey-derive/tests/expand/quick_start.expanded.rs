///A skip-scan filter on [`UserEvent`] keys under construction: `UserEvent::filter()`, one method per field, then `build()`.
#[must_use = "a filter does nothing until `build()` and a scan use it"]
#[allow(dead_code)]
struct UserEventFilter(::rowkey_core::__private::FilterParts);
const _: () = {
    use ::rowkey_core::__private::{self as __rk, traits::*};
    type __Salt = __rk::ByteSalt;
    type __K0 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    type __K1 = __rk::DescTs;
    type __K2 = __rk::Padded<8, 0, __rk::Asc, __rk::Fwd>;
    const __FIELDS: &[__rk::FieldLayout] = &[
        __rk::field!(
            "user_id", "u64", BigEndian { desc : false }, < __K0 as __Codec < u64 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K0, u64 >, 0, 0
        ),
        __rk::field!(
            "ts_millis", "i64", DescTs, < __K1 as __Codec < i64 >> ::LAYOUT_WIDTH,
            __rk::read:: < __K1, i64 >, 0, 0
        ),
        __rk::field!(
            "kind", "String" as "str", Padded { len : 8, pad : 0, desc : false }, < __K2
            as __Codec < String >> ::LAYOUT_WIDTH, __rk::read:: < __K2, __rk::String >,
            0, 0
        ),
    ];
    __rk::layout!("UserEvent", Binary, b"", salt(16, Xxh3, ["user_id"]));
    #[automatically_derived]
    impl __rk::RowKey for UserEvent {
        const FIXED_LEN: __rk::Option<usize> = __rk::Option::Some(Self::LEN);
        const MIN_LEN: usize = Self::LEN;
        const SALT_BUCKETS: __rk::Option<u16> = __rk::Option::Some(16);
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
            let __p1 = __K0::encode(&self.user_id, __out, 1, "user_id")?;
            let __p2 = __K1::encode(&self.ts_millis, __out, __p1, "ts_millis")?;
            let __p3 = __K2::encode(&self.kind, __out, __p2, "kind")?;
            __Salt::write(__out, __rk::salt::<__rk::Xxh3>(&[&__out[1..__p1]], 16));
            __rk::Result::Ok(__p3)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for UserEvent {
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            __rk::decode_fixed(
                __input,
                Self::LEN,
                |__input: &'__de [u8]| {
                    __rk::decode_salt::<__Salt>(__input, 16)?;
                    let (__v0, __p) = __K0::decode(__input, 1, "user_id")?;
                    let (__v1, __p) = __K1::decode(__input, __p, "ts_millis")?;
                    let (__v2, __p) = __K2::decode(__input, __p, "kind")?;
                    __rk::finish(__input, __p)?;
                    __rk::Result::Ok(Self {
                        user_id: __v0,
                        ts_millis: __v1,
                        kind: __v2,
                    })
                },
            )
        }
    }
    __rk::if_alloc! {
        #[automatically_derived] impl UserEventFilter { #[doc =
        "Only keys whose `user_id` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn user_id < __P : __rk::FieldPredicate < u64 > > (self, user_id :
        __P) -> Self { UserEventFilter(__K0::constrain(self.0, 0, user_id, "user_id",
        __rk::PhantomData)) } #[doc =
        "Only keys whose `ts_millis` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn ts_millis < __P : __rk::FieldPredicate < i64 > > (self,
        ts_millis : __P) -> Self { UserEventFilter(__K1::constrain(self.0, 1, ts_millis,
        "ts_millis", __rk::PhantomData)) } #[doc =
        "Only keys whose `kind` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn kind < '__r, __P : __rk::FieldPredicate < & '__r str > > (self,
        kind : __P) -> Self { UserEventFilter(__K2::constrain(self.0, 2, kind, "kind",
        __rk::PhantomData)) } #[doc =
        r" The filter, or the first predicate value that cannot be encoded"] #[doc =
        r" (a `#[fixed]` string that is too long, a timestamp out of range)."] #[inline]
        pub fn build(self) -> __rk::Result < __rk::KeyFilter, __rk::EncodeError > { let
        mut __parts = self.0; let __bucket = match (__parts.single(0),) {
        (__rk::Option::Some(__s0),) => match (< __K0 as __rk::FieldDecode < '_, u64 >>
        ::decode(__s0, 0, "user_id"),) { (__rk::Result::Ok((__v0, _)),) =>
        __rk::Option::Some(UserEvent::__rk_bucket(& __v0)), _ => __rk::Option::None, }, _
        => __rk::Option::None, }; if let __rk::Option::Some(__b) = __bucket { __parts
        .in_bucket(__b); } __parts.build() } }
    }
    #[automatically_derived]
    impl UserEvent {
        /// The length of every key of this layout, in bytes.
        pub const LEN: usize = 1 + <__K0 as __Codec<u64>>::WIDTH
            + <__K1 as __Codec<i64>>::WIDTH + <__K2 as __Codec<String>>::WIDTH;
        /// The key as a fixed-size array, or the field that cannot be encoded.
        #[inline(always)]
        pub fn try_encode(&self) -> __rk::Result<[u8; Self::LEN], __rk::EncodeError> {
            let mut __buf = [0u8; Self::LEN];
            __rk::RowKey::encode_into(self, &mut __buf).map(|_| __buf)
        }
        #[inline]
        fn __rk_bucket<__T0: ?Sized>(user_id: &__T0) -> u8
        where
            __K0: __Codec<__T0>,
        {
            let mut __buf = [0u8; <__K0 as __Codec<u64>>::WIDTH];
            let __p = __rk::infallible(__K0::encode(user_id, &mut __buf, 0, "user_id"));
            __rk::salt::<__rk::Xxh3>(&[&__buf[..__p]], 16)
        }
        /// The salt bucket of this key, or the `by` field that cannot be encoded.
        #[inline]
        pub fn try_bucket(&self) -> __rk::Result<u8, __rk::EncodeError> {
            __rk::Result::Ok(Self::__rk_bucket(&self.user_id))
        }
        /// The salt bucket of this key, from the `by` fields alone.
        #[inline]
        pub fn bucket(&self) -> u8 {
            Self::__rk_bucket(&self.user_id)
        }
        /// Where to pre-split the table: one region per salt bucket; none when unsalted.
        #[inline]
        pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
            __rk::split_points::<__Salt>(&[], 16)
        }
        /// Every row of the table: one range per salt bucket when salted.
        #[inline]
        pub fn scan_all() -> __rk::Scan {
            __rk::Leading::all(16).scan_eq()
        }
        #[inline]
        fn __rk_prefix1(user_id: u64) -> __rk::Leading {
            __rk::infallible(
                __K0::extend(
                    __rk::Leading::one(Self::__rk_bucket(&user_id)),
                    &user_id,
                    "user_id",
                ),
            )
        }
        ///Every row whose `user_id` is the given value.
        #[inline]
        pub fn scan_by_user_id(user_id: u64) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix1(user_id))
        }
        ///Every row whose `user_id` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_user_id(range: impl __rk::RangeBounds<u64>) -> __rk::Scan {
            __rk::infallible(__K0::scan_range(__rk::Leading::all(16), &range, "user_id"))
        }
        #[inline]
        fn __rk_prefix2(user_id: u64, ts_millis: i64) -> __rk::Leading {
            __rk::infallible(
                __K1::extend(Self::__rk_prefix1(user_id), &ts_millis, "ts_millis"),
            )
        }
        ///Every row whose `user_id` and `ts_millis` are the given values.
        #[inline]
        pub fn scan_by_user_id_ts_millis(user_id: u64, ts_millis: i64) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix2(user_id, ts_millis))
        }
        ///Every row whose `user_id` is the given value and whose `ts_millis` is in `range`. The field sorts descending: the rows come largest (newest) first. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_user_id_ts_millis(
            user_id: u64,
            range: impl __rk::RangeBounds<i64>,
        ) -> __rk::Scan {
            __rk::infallible(
                __K1::scan_range(Self::__rk_prefix1(user_id), &range, "ts_millis"),
            )
        }
        ///Every row whose `user_id`, `ts_millis` and `kind` are the given values.
        #[inline]
        pub fn scan_by_user_id_ts_millis_kind<'__r>(
            user_id: u64,
            ts_millis: i64,
            kind: &'__r str,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K2::extend(Self::__rk_prefix2(user_id, ts_millis), &kind, "kind")
                .map(__rk::Leading::scan_eq)
        }
        ///Every row whose `user_id` and `ts_millis` are the given values and whose `kind` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_user_id_ts_millis_kind<'__r>(
            user_id: u64,
            ts_millis: i64,
            range: impl __rk::RangeBounds<&'__r str>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K2::scan_range(Self::__rk_prefix2(user_id, ts_millis), &range, "kind")
        }
        ///A skip-scan filter on this key's fields: `UserEvent::filter().field(predicate)...build()` gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, `seek_hint` and `scan`).
        #[inline]
        pub fn filter() -> UserEventFilter {
            UserEventFilter(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
        }
    }
};
