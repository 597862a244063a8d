///A skip-scan filter on [`Access`] keys under construction: `Access::filter()`, one method per field, then `build()`.
#[must_use = "a filter does nothing until `build()` and a scan use it"]
#[allow(dead_code)]
struct AccessFilter(::my_crate::rowkey::__private::FilterParts);
const _: () = {
    use ::my_crate::rowkey::__private::{self as __rk, traits::*};
    type __Salt = __rk::ByteSalt;
    type __K0 = __rk::Var<__rk::Escaped, __rk::Asc, __rk::Fwd>;
    type __K1 = __rk::Var<__rk::Escaped, __rk::Asc, __rk::Fwd>;
    type __K2 = __rk::Var<__rk::Raw, __rk::Asc, __rk::Fwd>;
    const __FIELDS: &[__rk::FieldLayout] = &[
        __rk::field!(
            "host", "&'a str" as "str", Escaped { desc : false }, < __K0 as __Codec < &
            'static str >> ::LAYOUT_WIDTH, __rk::read:: < __K0, __rk::String >, 0, 0
        ),
        __rk::field!(
            "path", "&'a [u8]" as "bytes", Escaped { desc : false }, < __K1 as __Codec <
            & 'static [u8] >> ::LAYOUT_WIDTH, __rk::read:: < __K1, __rk::Vec < u8 > >, 0,
            0
        ),
        __rk::field!(
            "region", "&'static str" as "str", Raw, < __K2 as __Codec < & 'static str >>
            ::LAYOUT_WIDTH, __rk::read:: < __K2, __rk::String >, 0, 0
        ),
    ];
    __rk::layout!("Access", Binary, b"", salt(8, Xxh3, ["host"]));
    #[automatically_derived]
    impl<'a> __rk::RowKey for Access<'a> {
        const FIXED_LEN: __rk::Option<usize> = __rk::Option::None;
        const MIN_LEN: usize = 1 + <__K0 as __Codec<&'static str>>::MIN_LEN
            + <__K1 as __Codec<&'static [u8]>>::MIN_LEN
            + <__K2 as __Codec<&'static str>>::MIN_LEN;
        const SALT_BUCKETS: __rk::Option<u16> = __rk::Option::Some(8);
        const LAYOUT: &'static __rk::Layout = &__LAYOUT;
        #[inline]
        fn encoded_len(&self) -> usize {
            1 + __K0::encoded_len(&self.host) + __K1::encoded_len(&self.path)
                + __K2::encoded_len(&self.region)
        }
        #[inline]
        fn encode_into(
            &self,
            __out: &mut [u8],
        ) -> __rk::Result<usize, __rk::EncodeError> {
            let __out = if __out.len()
                >= 1 + __K0::max_encoded_len(&self.host)
                    + __K1::max_encoded_len(&self.path)
                    + __K2::max_encoded_len(&self.region)
            {
                __out
            } else {
                __rk::output(__out, __rk::RowKey::encoded_len(self))?
            };
            let __p1 = __K0::encode(&self.host, __out, 1, "host")?;
            let __p2 = __K1::encode(&self.path, __out, __p1, "path")?;
            let __p3 = __K2::encode(&self.region, __out, __p2, "region")?;
            __Salt::write(__out, __rk::salt::<__rk::Xxh3>(&[&__out[1..__p1]], 8));
            __rk::Result::Ok(__p3)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for Access<'__de>
    where
        __K2: __rk::FieldDecode<'__de, &'static str>,
    {
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            __rk::decode_salt::<__Salt>(__input, 8)?;
            let (__v0, __p) = __K0::decode(__input, 1, "host")?;
            let (__v1, __p) = __K1::decode(__input, __p, "path")?;
            let (__v2, __p) = __K2::decode(__input, __p, "region")?;
            __rk::finish(__input, __p)?;
            __rk::Result::Ok(Self {
                host: __v0,
                path: __v1,
                region: __v2,
            })
        }
    }
    __rk::if_alloc! {
        #[automatically_derived] impl AccessFilter { #[doc =
        "Only keys whose `host` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn host < '__r, __P : __rk::FieldPredicate < & '__r str > > (self,
        host : __P) -> Self { AccessFilter(__K0::constrain(self.0, 0, host, "host",
        __rk::PhantomData)) } #[doc =
        "Only keys whose `path` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn path < '__r, __P : __rk::FieldPredicate < & '__r[u8] > > (self,
        path : __P) -> Self { AccessFilter(__K1::constrain(self.0, 1, path, "path",
        __rk::PhantomData)) } #[doc =
        "Only keys whose `region` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn region < '__r, __P : __rk::FieldPredicate < & '__r str > >
        (self, region : __P) -> Self { AccessFilter(__K2::constrain(self.0, 2, region,
        "region", __rk::PhantomData)) } #[doc =
        r" The filter, or the first predicate value that cannot be encoded"] #[doc =
        r" (a `#[fixed]` string that is too long, a timestamp out of range)."] #[inline]
        pub fn build(self) -> __rk::Result < __rk::KeyFilter, __rk::EncodeError > { let
        mut __parts = self.0; let __bucket = match (__parts.single(0),) {
        (__rk::Option::Some(__s0),) => match (< __K0 as __rk::FieldDecode < '_,
        __rk::String >> ::decode(__s0, 0, "host"),) { (__rk::Result::Ok((__v0, _)),) =>
        __rk::Option::Some(Access::__rk_bucket(& __v0)), _ => __rk::Option::None, }, _ =>
        __rk::Option::None, }; if let __rk::Option::Some(__b) = __bucket { __parts
        .in_bucket(__b); } __parts.build() } }
    }
    #[automatically_derived]
    impl<'a> Access<'a> {
        #[inline]
        fn __rk_bucket<__T0: ?Sized>(host: &__T0) -> u8
        where
            __K0: __Codec<__T0>,
        {
            let mut __buf = __rk::zeroed(__K0::encoded_len(host));
            let __p = __rk::infallible(__K0::encode(host, &mut __buf, 0, "host"));
            __rk::salt::<__rk::Xxh3>(&[&__buf[..__p]], 8)
        }
        /// The salt bucket of this key, or the `by` field that cannot be encoded.
        #[inline]
        pub fn try_bucket(&self) -> __rk::Result<u8, __rk::EncodeError> {
            __rk::Result::Ok(Self::__rk_bucket(&self.host))
        }
        /// The salt bucket of this key, from the `by` fields alone.
        #[inline]
        pub fn bucket(&self) -> u8 {
            Self::__rk_bucket(&self.host)
        }
        /// Where to pre-split the table: one region per salt bucket; none when unsalted.
        #[inline]
        pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
            __rk::split_points::<__Salt>(&[], 8)
        }
        /// Every row of the table: one range per salt bucket when salted.
        #[inline]
        pub fn scan_all() -> __rk::Scan {
            __rk::Leading::all(8).scan_eq()
        }
        #[inline]
        fn __rk_prefix1<'__r>(host: &'__r str) -> __rk::Leading {
            __rk::infallible(
                __K0::extend(__rk::Leading::one(Self::__rk_bucket(&host)), &host, "host"),
            )
        }
        ///Every row whose `host` is the given value.
        #[inline]
        pub fn scan_by_host<'__r>(host: &'__r str) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix1(host))
        }
        ///Every row whose `host` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_host<'__r>(
            range: impl __rk::RangeBounds<&'__r str>,
        ) -> __rk::Scan {
            __rk::infallible(__K0::scan_range(__rk::Leading::all(8), &range, "host"))
        }
        #[inline]
        fn __rk_prefix2<'__r>(host: &'__r str, path: &'__r [u8]) -> __rk::Leading {
            __rk::infallible(__K1::extend(Self::__rk_prefix1(host), &path, "path"))
        }
        ///Every row whose `host` and `path` are the given values.
        #[inline]
        pub fn scan_by_host_path<'__r>(host: &'__r str, path: &'__r [u8]) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix2(host, path))
        }
        ///Every row whose `host` is the given value and whose `path` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_host_path<'__r>(
            host: &'__r str,
            range: impl __rk::RangeBounds<&'__r [u8]>,
        ) -> __rk::Scan {
            __rk::infallible(__K1::scan_range(Self::__rk_prefix1(host), &range, "path"))
        }
        ///Every row whose `host`, `path` and `region` are the given values.
        #[inline]
        pub fn scan_by_host_path_region<'__r>(
            host: &'__r str,
            path: &'__r [u8],
            region: &'__r str,
        ) -> __rk::Scan {
            __rk::Leading::scan_exact(
                __rk::infallible(
                    __K2::extend(Self::__rk_prefix2(host, path), &region, "region"),
                ),
            )
        }
        ///Every row whose `host` and `path` are the given values and whose `region` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_host_path_region<'__r>(
            host: &'__r str,
            path: &'__r [u8],
            range: impl __rk::RangeBounds<&'__r str>,
        ) -> __rk::Scan {
            __rk::infallible(
                __K2::scan_range(Self::__rk_prefix2(host, path), &range, "region"),
            )
        }
        ///A skip-scan filter on this key's fields: `Access::filter().field(predicate)...build()` gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, `seek_hint` and `scan`).
        #[inline]
        pub fn filter() -> AccessFilter {
            AccessFilter(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
        }
    }
};
