const _: () = {
    use ::rowkey_core::__private::{self as __rk, traits::*};
    type __Salt = __rk::OcSalt;
    type __K0 = __rk::OcInt<__rk::Asc, __rk::Term>;
    type __K1 = __rk::OcInt<__rk::Desc, __rk::Term>;
    type __K2 = __rk::OcStr<__rk::Asc, __rk::Term>;
    type __L2 = __rk::OcStr<__rk::Asc, __rk::Last>;
    const __FIELDS: &[__rk::FieldLayout] = &[
        __rk::field!(
            "user", "i64", OrderedCode { desc : false }, < __K0 as __Codec < i64 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K0, i64 >, 0, 0
        ),
        __rk::field!(
            "ts", "i64", OrderedCode { desc : true }, < __K1 as __Codec < i64 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K1, i64 >, 0, 0
        ),
        __rk::field!(
            "tag", "String" as "str", OrderedCode { desc : false }, < __L2 as __Codec <
            String >> ::LAYOUT_WIDTH, __rk::read:: < __L2, __rk::String >, 0, 0
        ),
    ];
    __rk::layout!("Event", OrderedCode, b"e\0\x01", salt(8, Xxh3, ["user"]));
    #[automatically_derived]
    impl __rk::RowKey for Event {
        const FIXED_LEN: __rk::Option<usize> = __rk::Option::None;
        const MIN_LEN: usize = 6 + <__K0 as __Codec<i64>>::MIN_LEN
            + <__K1 as __Codec<i64>>::MIN_LEN + <__L2 as __Codec<String>>::MIN_LEN;
        const SALT_BUCKETS: __rk::Option<u16> = __rk::Option::Some(8);
        const PREFIX: &'static [u8] = b"e\0\x01";
        const LAYOUT: &'static __rk::Layout = &__LAYOUT;
        #[inline]
        fn encoded_len(&self) -> usize {
            let __kept: usize = if !__rk::oc_empty(&self.tag) { 3 } else { 2 };
            6 + (__K0::encoded_len(&self.user)) + (__K1::encoded_len(&self.ts))
                + (if __kept == 3 { __L2::encoded_len(&self.tag) } else { 0 })
        }
        #[inline]
        fn encode_into(
            &self,
            __out: &mut [u8],
        ) -> __rk::Result<usize, __rk::EncodeError> {
            let __out = if __out.len()
                >= 6 + __K0::max_encoded_len(&self.user)
                    + __K1::max_encoded_len(&self.ts) + __K2::max_encoded_len(&self.tag)
            {
                __out
            } else {
                __rk::output(__out, __rk::RowKey::encoded_len(self))?
            };
            __out[..3].copy_from_slice(b"e\0\x01");
            let __kept: usize = if !__rk::oc_empty(&self.tag) { 3 } else { 2 };
            let __p1 = __K0::encode(&self.user, __out, 6, "user")?;
            let __p2 = __K1::encode(&self.ts, __out, __p1, "ts")?;
            let __p3 = if __kept == 3 {
                __L2::encode(&self.tag, __out, __p2, "tag")?
            } else {
                __p2
            };
            let __b = self.bucket();
            __Salt::write(&mut __out[3..], __b);
            __rk::Result::Ok(__p3)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for Event {
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            __rk::check_prefix(__input, b"e\0\x01")?;
            __rk::decode_salt::<__Salt>(&__input[3..], 8)?;
            let (__v0, __p) = __K0::decode(__input, 6, "user")?;
            let (__v1, __p) = __K1::decode(__input, __p, "ts")?;
            let (__v2, __p) = __L2::decode(__input, __p, "tag")?;
            __rk::finish(__input, __p)?;
            let __key = Self {
                user: __v0,
                ts: __v1,
                tag: __v2,
            };
            __rk::oc_canonical(__input, __rk::RowKey::encoded_len(&__key), "tag")?;
            __rk::Result::Ok(__key)
        }
    }
    #[automatically_derived]
    impl Event {
        #[inline]
        fn __rk_bucket<__T0: ?Sized>(user: &__T0) -> u8
        where
            __K0: __rk::OcPart<__T0>,
        {
            let mut __b0 = [0u8; __rk::MAX_INT64_LEN];
            __rk::salt::<__rk::Xxh3>(&[__K0::part(user, &mut __b0)], 8)
        }
        /// The salt bucket of this key, from the `by` fields alone.
        #[inline]
        pub fn bucket(&self) -> u8 {
            Self::__rk_bucket(&self.user)
        }
        /// The salt bucket of this key (it cannot fail: every value of an
        /// ordered-code field has bytes to hash).
        #[inline]
        pub fn try_bucket(&self) -> __rk::Result<u8, __rk::EncodeError> {
            __rk::Result::Ok(self.bucket())
        }
        /// Where to pre-split the table: one region per salt bucket; none when unsalted.
        #[inline]
        pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
            __rk::split_points::<__Salt>(b"e\0\x01", 8)
        }
        /// Every row of the table: one range per salt bucket when salted.
        #[inline]
        pub fn scan_all() -> __rk::Scan {
            __rk::Leading::all(8)
                .head(<__Salt as __rk::SaltHead>::HEAD)
                .family(b"e\0\x01")
                .scan_eq()
        }
        #[inline]
        fn __rk_prefix1(user: i64) -> __rk::Leading {
            __rk::infallible(
                __K0::extend(
                    __rk::Leading::one(Self::__rk_bucket(&user))
                        .head(<__Salt as __rk::SaltHead>::HEAD)
                        .family(b"e\0\x01"),
                    &user,
                    "user",
                ),
            )
        }
        ///Every row whose `user` is the given value.
        #[inline]
        pub fn scan_by_user(user: i64) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix1(user))
        }
        ///Every row whose `user` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_user(range: impl __rk::RangeBounds<i64>) -> __rk::Scan {
            __rk::infallible(
                __K0::scan_range(
                    __rk::Leading::all(8)
                        .head(<__Salt as __rk::SaltHead>::HEAD)
                        .family(b"e\0\x01"),
                    &range,
                    "user",
                ),
            )
        }
        #[inline]
        fn __rk_prefix2(user: i64, ts: i64) -> __rk::Leading {
            __rk::infallible(__K1::extend(Self::__rk_prefix1(user), &ts, "ts"))
        }
        ///Every row whose `user` and `ts` are the given values.
        #[inline]
        pub fn scan_by_user_ts(user: i64, ts: i64) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix2(user, ts))
        }
        ///Every row whose `user` is the given value and whose `ts` is in `range`. The field sorts descending: the rows come largest (newest) first. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_user_ts(
            user: i64,
            range: impl __rk::RangeBounds<i64>,
        ) -> __rk::Scan {
            __rk::infallible(__K1::scan_range(Self::__rk_prefix1(user), &range, "ts"))
        }
        ///Every row whose `user`, `ts` and `tag` are the given values.
        #[inline]
        pub fn scan_by_user_ts_tag<'__r>(
            user: i64,
            ts: i64,
            tag: &'__r str,
        ) -> __rk::Scan {
            __rk::Leading::scan_eq(
                __rk::infallible(__K2::extend(Self::__rk_prefix2(user, ts), &tag, "tag")),
            )
        }
        ///Every row whose `user` and `ts` are the given values and whose `tag` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_user_ts_tag<'__r>(
            user: i64,
            ts: i64,
            range: impl __rk::RangeBounds<&'__r str>,
        ) -> __rk::Scan {
            __rk::infallible(
                __K2::scan_range(Self::__rk_prefix2(user, ts), &range, "tag"),
            )
        }
    }
};
