///A skip-scan filter on [`Document`] keys under construction: `Document::filter()`, one method per field, then `build()`.
#[must_use = "a filter does nothing until `build()` and a scan use it"]
#[allow(dead_code)]
struct DocumentFilter(::rowkey_core::__private::FilterParts);
const _: () = {
    use ::rowkey_core::__private::{self as __rk, traits::*};
    type __Salt = __rk::ByteSalt;
    type __K0 = __rk::Var<__rk::Escaped, __rk::Asc, __rk::Fwd>;
    type __K1 = __rk::Opt<__rk::Fixed<__rk::Asc, __rk::Fwd>, __rk::Asc>;
    type __K2 = __rk::Var<__rk::Raw, __rk::Asc, __rk::Fwd>;
    const __FIELDS: &[__rk::FieldLayout] = &[
        __rk::field!(
            "tenant", "String" as "str", Escaped { desc : false }, < __K0 as __Codec <
            String >> ::LAYOUT_WIDTH, __rk::read:: < __K0, __rk::String >, 0, 0
        ),
        __rk::field!(
            "version", "Option<u32>", BigEndian { desc : false }, < __K1 as __Codec <
            Option < u32 > >> ::LAYOUT_WIDTH, __rk::read:: < __K1, Option < u32 > >, 1, 0
        ),
        __rk::field!(
            "body", "Vec<u8>" as "bytes", Raw, < __K2 as __Codec < Vec < u8 > >>
            ::LAYOUT_WIDTH, __rk::read:: < __K2, __rk::Vec < u8 > >, 0, 0
        ),
    ];
    __rk::layout!("Document", Binary, b"", salt(4, Java, ["tenant", "version", "body"]));
    #[automatically_derived]
    impl __rk::RowKey for Document {
        const FIXED_LEN: __rk::Option<usize> = __rk::Option::None;
        const MIN_LEN: usize = 1 + <__K0 as __Codec<String>>::MIN_LEN
            + <__K1 as __Codec<Option<u32>>>::MIN_LEN
            + <__K2 as __Codec<Vec<u8>>>::MIN_LEN;
        const SALT_BUCKETS: __rk::Option<u16> = __rk::Option::Some(4);
        const LAYOUT: &'static __rk::Layout = &__LAYOUT;
        #[inline]
        fn encoded_len(&self) -> usize {
            1 + __K0::encoded_len(&self.tenant) + __K1::encoded_len(&self.version)
                + __K2::encoded_len(&self.body)
        }
        #[inline]
        fn encode_into(
            &self,
            __out: &mut [u8],
        ) -> __rk::Result<usize, __rk::EncodeError> {
            let __out = if __out.len()
                >= 1 + __K0::max_encoded_len(&self.tenant)
                    + __K1::max_encoded_len(&self.version)
                    + __K2::max_encoded_len(&self.body)
            {
                __out
            } else {
                __rk::output(__out, __rk::RowKey::encoded_len(self))?
            };
            let __p1 = __K0::encode(&self.tenant, __out, 1, "tenant")?;
            let __p2 = __K1::encode(&self.version, __out, __p1, "version")?;
            let __p3 = __K2::encode(&self.body, __out, __p2, "body")?;
            __Salt::write(__out, __rk::salt::<__rk::JavaHash>(&[&__out[1..__p3]], 4));
            __rk::Result::Ok(__p3)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for Document {
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            __rk::decode_salt::<__Salt>(__input, 4)?;
            let (__v0, __p) = __K0::decode(__input, 1, "tenant")?;
            let (__v1, __p) = __K1::decode(__input, __p, "version")?;
            let (__v2, __p) = __K2::decode(__input, __p, "body")?;
            __rk::finish(__input, __p)?;
            __rk::Result::Ok(Self {
                tenant: __v0,
                version: __v1,
                body: __v2,
            })
        }
    }
    __rk::if_alloc! {
        #[automatically_derived] impl DocumentFilter { #[doc =
        "Only keys whose `tenant` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn tenant < '__r, __P : __rk::FieldPredicate < & '__r str > >
        (self, tenant : __P) -> Self { DocumentFilter(__K0::constrain(self.0, 0, tenant,
        "tenant", __rk::PhantomData)) } #[doc =
        "Only keys whose `version` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn version < __P : __rk::FieldPredicate < __rk::Option < u32 > > >
        (self, version : __P) -> Self { DocumentFilter(__K1::constrain(self.0, 1,
        version, "version", __rk::PhantomData)) } #[doc =
        "Only keys whose `body` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn body < '__r, __P : __rk::FieldPredicate < & '__r[u8] > > (self,
        body : __P) -> Self { DocumentFilter(__K2::constrain(self.0, 2, body, "body",
        __rk::PhantomData)) } #[doc =
        r" The filter, or the first predicate value that cannot be encoded"] #[doc =
        r" (a `#[fixed]` string that is too long, a timestamp out of range)."] #[inline]
        pub fn build(self) -> __rk::Result < __rk::KeyFilter, __rk::EncodeError > { let
        mut __parts = self.0; let __bucket = match (__parts.single(0), __parts.single(1),
        __parts.single(2),) { (__rk::Option::Some(__s0), __rk::Option::Some(__s1),
        __rk::Option::Some(__s2),) => match (< __K0 as __rk::FieldDecode < '_,
        __rk::String >> ::decode(__s0, 0, "tenant"), < __K1 as __rk::FieldDecode < '_,
        __rk::Option < u32 > >> ::decode(__s1, 0, "version"), < __K2 as __rk::FieldDecode
        < '_, __rk::Vec < u8 > >> ::decode(__s2, 0, "body"),) { (__rk::Result::Ok((__v0,
        _)), __rk::Result::Ok((__v1, _)), __rk::Result::Ok((__v2, _)),) =>
        __rk::Option::Some(Document::__rk_bucket(& __v0, & __v1, & __v2)), _ =>
        __rk::Option::None, }, _ => __rk::Option::None, }; if let __rk::Option::Some(__b)
        = __bucket { __parts.in_bucket(__b); } __parts.build() } }
    }
    #[automatically_derived]
    impl Document {
        #[inline]
        fn __rk_bucket<__T0: ?Sized, __T1: ?Sized, __T2: ?Sized>(
            tenant: &__T0,
            version: &__T1,
            body: &__T2,
        ) -> u8
        where
            __K0: __Codec<__T0>,
            __K1: __Codec<__T1>,
            __K2: __Codec<__T2>,
        {
            let mut __buf = __rk::zeroed(
                __K0::encoded_len(tenant) + __K1::encoded_len(version)
                    + __K2::encoded_len(body),
            );
            let __p = __rk::infallible(__K0::encode(tenant, &mut __buf, 0, "tenant"));
            let __p = __rk::infallible(
                __K1::encode(version, &mut __buf, __p, "version"),
            );
            let __p = __rk::infallible(__K2::encode(body, &mut __buf, __p, "body"));
            __rk::salt::<__rk::JavaHash>(&[&__buf[..__p]], 4)
        }
        /// The salt bucket of this key, or the `by` field that cannot be encoded.
        #[inline]
        pub fn try_bucket(&self) -> __rk::Result<u8, __rk::EncodeError> {
            __rk::Result::Ok(Self::__rk_bucket(&self.tenant, &self.version, &self.body))
        }
        /// The salt bucket of this key, from the `by` fields alone.
        #[inline]
        pub fn bucket(&self) -> u8 {
            Self::__rk_bucket(&self.tenant, &self.version, &self.body)
        }
        /// Where to pre-split the table: one region per salt bucket; none when unsalted.
        #[inline]
        pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
            __rk::split_points::<__Salt>(&[], 4)
        }
        /// Every row of the table: one range per salt bucket when salted.
        #[inline]
        pub fn scan_all() -> __rk::Scan {
            __rk::Leading::all(4).scan_eq()
        }
        #[inline]
        fn __rk_prefix1<'__r>(tenant: &'__r str) -> __rk::Leading {
            __rk::infallible(__K0::extend(__rk::Leading::all(4), &tenant, "tenant"))
        }
        ///Every row whose `tenant` is the given value.
        #[inline]
        pub fn scan_by_tenant<'__r>(tenant: &'__r str) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix1(tenant))
        }
        ///Every row whose `tenant` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_tenant<'__r>(
            range: impl __rk::RangeBounds<&'__r str>,
        ) -> __rk::Scan {
            __rk::infallible(__K0::scan_range(__rk::Leading::all(4), &range, "tenant"))
        }
        #[inline]
        fn __rk_prefix2<'__r>(
            tenant: &'__r str,
            version: __rk::Option<u32>,
        ) -> __rk::Leading {
            __rk::infallible(
                __K1::extend(Self::__rk_prefix1(tenant), &version, "version"),
            )
        }
        ///Every row whose `tenant` and `version` are the given values.
        #[inline]
        pub fn scan_by_tenant_version<'__r>(
            tenant: &'__r str,
            version: __rk::Option<u32>,
        ) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix2(tenant, version))
        }
        ///Every row whose `tenant` is the given value and whose `version` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_tenant_version<'__r>(
            tenant: &'__r str,
            range: impl __rk::RangeBounds<__rk::Option<u32>>,
        ) -> __rk::Scan {
            __rk::infallible(
                __K1::scan_range(Self::__rk_prefix1(tenant), &range, "version"),
            )
        }
        ///Every row whose `tenant`, `version` and `body` are the given values.
        #[inline]
        pub fn scan_by_tenant_version_body<'__r>(
            tenant: &'__r str,
            version: __rk::Option<u32>,
            body: &'__r [u8],
        ) -> __rk::Scan {
            __rk::Leading::scan_exact(
                __rk::infallible(
                    __K2::extend(
                        Self::__rk_prefix2(tenant, version)
                            .in_bucket(Self::__rk_bucket(&tenant, &version, &body)),
                        &body,
                        "body",
                    ),
                ),
            )
        }
        ///Every row whose `tenant` and `version` are the given values and whose `body` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_tenant_version_body<'__r>(
            tenant: &'__r str,
            version: __rk::Option<u32>,
            range: impl __rk::RangeBounds<&'__r [u8]>,
        ) -> __rk::Scan {
            __rk::infallible(
                __K2::scan_range(Self::__rk_prefix2(tenant, version), &range, "body"),
            )
        }
        ///A skip-scan filter on this key's fields: `Document::filter().field(predicate)...build()` gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, `seek_hint` and `scan`).
        #[inline]
        pub fn filter() -> DocumentFilter {
            DocumentFilter(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
        }
    }
};
