///A skip-scan filter on [`Call`] keys under construction: `Call::filter()`, one method per field, then `build()`.
#[must_use = "a filter does nothing until `build()` and a scan use it"]
#[allow(dead_code)]
struct CallFilter(::rowkey_core::__private::FilterParts);
const _: () = {
    use ::rowkey_core::__private::{self as __rk, traits::*};
    struct __Sep;
    impl __rk::Sep for __Sep {
        const SEP: &'static [u8] = b"_";
    }
    type __Salt = __rk::TextSalt<__Sep, 1>;
    type __K0 = __rk::Then<__rk::Dec<11, __rk::Asc, __rk::Fwd>, __Sep>;
    type __K1 = __rk::Then<__rk::TextDescTs<19, 9223372036854775807>, __Sep>;
    type __K2 = __rk::Delimited<__Sep, __rk::Dom>;
    type __K3 = __rk::Var<__rk::Raw, __rk::Asc, __rk::Fwd>;
    const __FIELDS: &[__rk::FieldLayout] = &[
        __rk::field!(
            "phone", "u64", Digits { digits : 11, signed : false, desc : false }, < __K0
            as __Codec < u64 >> ::LAYOUT_WIDTH, __rk::read:: < __K0, u64 >, 0, 1
        ),
        __rk::field!(
            "ts", "i64", DescTsDigits { digits : 19, max : 9223372036854775807 }, < __K1
            as __Codec < i64 >> ::LAYOUT_WIDTH, __rk::read:: < __K1, i64 >, 0, 1
        ),
        __rk::field!(
            "host", "String" as "str", Delimited, < __K2 as __Codec < String >>
            ::LAYOUT_WIDTH, __rk::read:: < __K2, __rk::String >, 8, 1
        ),
        __rk::field!(
            "note", "String" as "str", Raw, < __K3 as __Codec < String >> ::LAYOUT_WIDTH,
            __rk::read:: < __K3, __rk::String >, 0, 0
        ),
    ];
    __rk::layout!("Call", Text { sep : "_" }, b"", salt(10, Mod, ["phone"]));
    #[allow(non_camel_case_types)]
    mod __rk_no_range {
        pub enum host {}
    }
    #[automatically_derived]
    impl __rk::RowKey for Call {
        const FIXED_LEN: __rk::Option<usize> = __rk::Option::None;
        const MIN_LEN: usize = 2 + <__K0 as __Codec<u64>>::MIN_LEN
            + <__K1 as __Codec<i64>>::MIN_LEN + <__K2 as __Codec<String>>::MIN_LEN
            + <__K3 as __Codec<String>>::MIN_LEN;
        const SALT_BUCKETS: __rk::Option<u16> = __rk::Option::Some(10);
        const LAYOUT: &'static __rk::Layout = &__LAYOUT;
        #[inline]
        fn encoded_len(&self) -> usize {
            2 + __K0::encoded_len(&self.phone) + __K1::encoded_len(&self.ts)
                + __K2::encoded_len(&self.host) + __K3::encoded_len(&self.note)
        }
        #[inline]
        fn encode_into(
            &self,
            __out: &mut [u8],
        ) -> __rk::Result<usize, __rk::EncodeError> {
            let __out = if __out.len()
                >= 2 + __K0::max_encoded_len(&self.phone)
                    + __K1::max_encoded_len(&self.ts) + __K2::max_encoded_len(&self.host)
                    + __K3::max_encoded_len(&self.note)
            {
                __out
            } else {
                __rk::output(__out, __rk::RowKey::encoded_len(self))?
            };
            let __p1 = __K0::encode(&self.phone, __out, 2, "phone")?;
            let __p2 = __K1::encode(&self.ts, __out, __p1, "ts")?;
            let __p3 = __K2::encode(&self.host, __out, __p2, "host")?;
            let __p4 = __K3::encode(&self.note, __out, __p3, "note")?;
            __Salt::write(__out, __rk::salt_mod(&self.phone, 10));
            __rk::Result::Ok(__p4)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for Call {
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            __rk::decode_salt::<__Salt>(__input, 10)?;
            let (__v0, __p) = __K0::decode(__input, 2, "phone")?;
            let (__v1, __p) = __K1::decode(__input, __p, "ts")?;
            let (__v2, __p) = __K2::decode(__input, __p, "host")?;
            let (__v3, __p) = __K3::decode(__input, __p, "note")?;
            __rk::finish(__input, __p)?;
            __rk::Result::Ok(Self {
                phone: __v0,
                ts: __v1,
                host: __v2,
                note: __v3,
            })
        }
    }
    __rk::if_alloc! {
        #[automatically_derived] impl CallFilter { #[doc =
        "Only keys whose `phone` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn phone < __P : __rk::FieldPredicate < u64 > > (self, phone : __P)
        -> Self { CallFilter(__K0::constrain(self.0, 0, phone, "phone",
        __rk::PhantomData)) } #[doc =
        "Only keys whose `ts` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn ts < __P : __rk::FieldPredicate < i64 > > (self, ts : __P) ->
        Self { CallFilter(__K1::constrain(self.0, 1, ts, "ts", __rk::PhantomData)) }
        #[doc =
        "Only keys whose `host` matches: a value or `any_of` values (its bytes do not sort by value: no range). Called twice, both must hold."]
        #[inline] pub fn host < '__r, __P : __rk::ValuePredicate < & '__r str > > (self,
        host : __P) -> Self { CallFilter(__K2::constrain(self.0, 2, host, "host",
        __rk::PhantomData)) } #[doc =
        "Only keys whose `note` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn note < '__r, __P : __rk::FieldPredicate < & '__r str > > (self,
        note : __P) -> Self { CallFilter(__K3::constrain(self.0, 3, note, "note",
        __rk::PhantomData)) } #[doc =
        r" The filter, or the first predicate value that cannot be encoded"] #[doc =
        r" (a `#[fixed]` string that is too long, a timestamp out of range)."] #[inline]
        pub fn build(self) -> __rk::Result < __rk::KeyFilter, __rk::EncodeError > { let
        mut __parts = self.0; let __bucket = match (__parts.single(0),) {
        (__rk::Option::Some(__s0),) => match (< __K0 as __rk::FieldDecode < '_, u64 >>
        ::decode(__s0, 0, "phone"),) { (__rk::Result::Ok((__v0, _)),) =>
        __rk::Option::Some(Call::__rk_bucket(& __v0)), _ => __rk::Option::None, }, _ =>
        __rk::Option::None, }; if let __rk::Option::Some(__b) = __bucket { __parts
        .in_bucket(__b); } __parts.build() } }
    }
    #[automatically_derived]
    impl Call {
        /// The key as a `String`: a text key is UTF-8 (ASCII digits,
        /// separators and the string fields' text; an error where a
        /// user's `TextForm` wrote other bytes).
        #[inline]
        pub fn encode_to_string(&self) -> __rk::Result<__rk::String, __rk::EncodeError> {
            __rk::RowKey::encode_to_vec(self).and_then(__rk::text_key)
        }
        /// Decodes a text key from a `&str` (as printed by the HBase shell
        /// or `cbt` for a readable key).
        #[inline]
        pub fn decode_str<'__de>(
            __input: &'__de str,
        ) -> __rk::Result<Self, __rk::DecodeError>
        where
            Self: __rk::DecodeRowKey<'__de>,
        {
            <Self as __rk::DecodeRowKey<'__de>>::decode(__input.as_bytes())
        }
        #[inline]
        fn __rk_bucket<__T0: ?Sized>(phone: &__T0) -> u8
        where
            __T0: __rk::ModSalt,
        {
            __rk::salt_mod(phone, 10)
        }
        /// The salt bucket of this key, or the `by` field that cannot be encoded.
        #[inline]
        pub fn try_bucket(&self) -> __rk::Result<u8, __rk::EncodeError> {
            __rk::Result::Ok(Self::__rk_bucket(&self.phone))
        }
        /// The salt bucket of this key, from the `by` fields alone.
        #[inline]
        pub fn bucket(&self) -> u8 {
            Self::__rk_bucket(&self.phone)
        }
        /// Where to pre-split the table: one region per salt bucket; none when unsalted.
        #[inline]
        pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
            __rk::split_points::<__Salt>(&[], 10)
        }
        /// Every row of the table: one range per salt bucket when salted.
        #[inline]
        pub fn scan_all() -> __rk::Scan {
            __rk::Leading::all(10).head(<__Salt as __rk::SaltHead>::HEAD).scan_eq()
        }
        #[inline]
        fn __rk_prefix1(phone: u64) -> __rk::Result<__rk::Leading, __rk::EncodeError> {
            __K0::extend(
                __rk::Leading::one(Self::__rk_bucket(&phone))
                    .head(<__Salt as __rk::SaltHead>::HEAD),
                &phone,
                "phone",
            )
        }
        ///Every row whose `phone` is the given value.
        #[inline]
        pub fn scan_by_phone(phone: u64) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            Self::__rk_prefix1(phone).map(__rk::Leading::scan_eq)
        }
        ///Every row whose `phone` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_phone(
            range: impl __rk::RangeBounds<u64>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K0::scan_range(
                __rk::Leading::all(10).head(<__Salt as __rk::SaltHead>::HEAD),
                &range,
                "phone",
            )
        }
        #[inline]
        fn __rk_prefix2(
            phone: u64,
            ts: i64,
        ) -> __rk::Result<__rk::Leading, __rk::EncodeError> {
            __K1::extend(Self::__rk_prefix1(phone)?, &ts, "ts")
        }
        ///Every row whose `phone` and `ts` are the given values.
        #[inline]
        pub fn scan_by_phone_ts(
            phone: u64,
            ts: i64,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            Self::__rk_prefix2(phone, ts).map(__rk::Leading::scan_eq)
        }
        ///Every row whose `phone` is the given value and whose `ts` is in `range`. The field sorts descending: the rows come largest (newest) first. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_phone_ts(
            phone: u64,
            range: impl __rk::RangeBounds<i64>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K1::scan_range(Self::__rk_prefix1(phone)?, &range, "ts")
        }
        #[inline]
        fn __rk_prefix3<'__r>(
            phone: u64,
            ts: i64,
            host: &'__r str,
        ) -> __rk::Result<__rk::Leading, __rk::EncodeError> {
            __K2::extend(Self::__rk_prefix2(phone, ts)?, &host, "host")
        }
        ///Every row whose `phone`, `ts` and `host` are the given values.
        #[inline]
        pub fn scan_by_phone_ts_host<'__r>(
            phone: u64,
            ts: i64,
            host: &'__r str,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            Self::__rk_prefix3(phone, ts, host).map(__rk::Leading::scan_eq)
        }
        #[doc(hidden)]
        #[allow(private_bounds, unused_variables)]
        pub fn range_by_phone_ts_host<__R>(phone: u64, ts: i64, range: __R) -> __rk::Scan
        where
            __R: __rk::SortsByValue<__rk_no_range::host>,
        {
            __rk::Scan::none()
        }
        ///Every row whose `phone`, `ts`, `host` and `note` are the given values.
        #[inline]
        pub fn scan_by_phone_ts_host_note<'__r>(
            phone: u64,
            ts: i64,
            host: &'__r str,
            note: &'__r str,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K3::extend(Self::__rk_prefix3(phone, ts, host)?, &note, "note")
                .map(__rk::Leading::scan_exact)
        }
        ///Every row whose `phone`, `ts` and `host` are the given values and whose `note` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_phone_ts_host_note<'__r>(
            phone: u64,
            ts: i64,
            host: &'__r str,
            range: impl __rk::RangeBounds<&'__r str>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K3::scan_range(Self::__rk_prefix3(phone, ts, host)?, &range, "note")
        }
        ///A skip-scan filter on this key's fields: `Call::filter().field(predicate)...build()` gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, `seek_hint` and `scan`).
        #[inline]
        pub fn filter() -> CallFilter {
            CallFilter(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
        }
    }
};
