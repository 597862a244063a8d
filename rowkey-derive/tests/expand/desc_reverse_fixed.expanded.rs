///A skip-scan filter on [`Order`] keys under construction: `Order::filter()`, one method per field, then `build()`.
#[must_use = "a filter does nothing until `build()` and a scan use it"]
#[allow(dead_code)]
struct OrderFilter(::rowkey_core::__private::FilterParts);
const _: () = {
    use ::rowkey_core::__private::{self as __rk, traits::*};
    type __K0 = __rk::Fixed<__rk::Desc, __rk::Fwd>;
    type __K1 = __rk::Fixed<__rk::Asc, __rk::Rev>;
    type __K2 = __rk::Padded<4, 32, __rk::Desc, __rk::Fwd>;
    type __K3 = __rk::DescTs;
    type __K4 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    const __FIELDS: &[__rk::FieldLayout] = &[
        __rk::field!(
            "priority", "i32", BigEndian { desc : true }, < __K0 as __Codec < i32 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K0, i32 >, 0, 0
        ),
        __rk::field!(
            "seq", "u64", BigEndian { desc : false }, < __K1 as __Codec < u64 >>
            ::LAYOUT_WIDTH, __rk::read:: < __K1, u64 >, 4, 0
        ),
        __rk::field!(
            "code", "String" as "str", Padded { len : 4, pad : 32, desc : true }, < __K2
            as __Codec < String >> ::LAYOUT_WIDTH, __rk::read:: < __K2, __rk::String >,
            0, 0
        ),
        __rk::field!(
            "ts", "u64", DescTs, < __K3 as __Codec < u64 >> ::LAYOUT_WIDTH, __rk::read::
            < __K3, u64 >, 0, 0
        ),
        __rk::field!(
            "id", "OrderId", BigEndian { desc : false }, < __K4 as __Codec < OrderId >>
            ::LAYOUT_WIDTH, __rk::read_opaque:: < __K4, OrderId >, 0, 0
        )
            .__key_field(<__K4 as __Codec<OrderId>>::KEY_FIELD),
    ];
    __rk::layout!("Order", Binary, b"");
    #[allow(non_camel_case_types)]
    mod __rk_no_range {
        pub enum seq {}
    }
    #[automatically_derived]
    impl __rk::RowKey for Order {
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
            let __p1 = __K0::encode(&self.priority, __out, 0, "priority")?;
            let __p2 = __K1::encode(&self.seq, __out, __p1, "seq")?;
            let __p3 = __K2::encode(&self.code, __out, __p2, "code")?;
            let __p4 = __K3::encode(&self.ts, __out, __p3, "ts")?;
            let __p5 = __K4::encode(&self.id, __out, __p4, "id")?;
            __rk::Result::Ok(__p5)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for Order {
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            __rk::decode_fixed(
                __input,
                Self::LEN,
                |__input: &'__de [u8]| {
                    let (__v0, __p) = __K0::decode(__input, 0, "priority")?;
                    let (__v1, __p) = __K1::decode(__input, __p, "seq")?;
                    let (__v2, __p) = __K2::decode(__input, __p, "code")?;
                    let (__v3, __p) = __K3::decode(__input, __p, "ts")?;
                    let (__v4, __p) = __K4::decode(__input, __p, "id")?;
                    __rk::finish(__input, __p)?;
                    __rk::Result::Ok(Self {
                        priority: __v0,
                        seq: __v1,
                        code: __v2,
                        ts: __v3,
                        id: __v4,
                    })
                },
            )
        }
    }
    __rk::if_alloc! {
        #[automatically_derived] impl OrderFilter { #[doc =
        "Only keys whose `priority` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn priority < __P : __rk::FieldPredicate < i32 > > (self, priority
        : __P) -> Self { OrderFilter(__K0::constrain(self.0, 0, priority, "priority",
        __rk::PhantomData)) } #[doc =
        "Only keys whose `seq` matches: a value or `any_of` values (its bytes do not sort by value: no range). Called twice, both must hold."]
        #[inline] pub fn seq < __P : __rk::ValuePredicate < u64 > > (self, seq : __P) ->
        Self { OrderFilter(__K1::constrain(self.0, 1, seq, "seq", __rk::PhantomData)) }
        #[doc =
        "Only keys whose `code` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn code < '__r, __P : __rk::FieldPredicate < & '__r str > > (self,
        code : __P) -> Self { OrderFilter(__K2::constrain(self.0, 2, code, "code",
        __rk::PhantomData)) } #[doc =
        "Only keys whose `ts` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn ts < __P : __rk::FieldPredicate < u64 > > (self, ts : __P) ->
        Self { OrderFilter(__K3::constrain(self.0, 3, ts, "ts", __rk::PhantomData)) }
        #[doc =
        "Only keys whose `id` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn id < __P : __rk::FieldPredicate < OrderId > > (self, id : __P)
        -> Self { OrderFilter(__K4::constrain(self.0, 4, id, "id", __rk::PhantomData)) }
        #[doc = r" The filter, or the first predicate value that cannot be encoded"]
        #[doc = r" (a `#[fixed]` string that is too long, a timestamp out of range)."]
        #[inline] pub fn build(self) -> __rk::Result < __rk::KeyFilter, __rk::EncodeError
        > { let __parts = self.0; __parts.build() } }
    }
    #[automatically_derived]
    impl Order {
        /// The length of every key of this layout, in bytes.
        pub const LEN: usize = <__K0 as __Codec<i32>>::WIDTH
            + <__K1 as __Codec<u64>>::WIDTH + <__K2 as __Codec<String>>::WIDTH
            + <__K3 as __Codec<u64>>::WIDTH + <__K4 as __Codec<OrderId>>::WIDTH;
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
        fn __rk_prefix1(priority: i32) -> __rk::Leading {
            __rk::infallible(
                __K0::extend(__rk::Leading::unsalted(), &priority, "priority"),
            )
        }
        ///Every row whose `priority` is the given value.
        #[inline]
        pub fn scan_by_priority(priority: i32) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix1(priority))
        }
        ///Every row whose `priority` is in `range`. The field sorts descending: the rows come largest (newest) first. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_priority(range: impl __rk::RangeBounds<i32>) -> __rk::Scan {
            __rk::infallible(
                __K0::scan_range(__rk::Leading::unsalted(), &range, "priority"),
            )
        }
        #[inline]
        fn __rk_prefix2(priority: i32, seq: u64) -> __rk::Leading {
            __rk::infallible(__K1::extend(Self::__rk_prefix1(priority), &seq, "seq"))
        }
        ///Every row whose `priority` and `seq` are the given values.
        #[inline]
        pub fn scan_by_priority_seq(priority: i32, seq: u64) -> __rk::Scan {
            __rk::Leading::scan_eq(Self::__rk_prefix2(priority, seq))
        }
        #[doc(hidden)]
        #[allow(private_bounds, unused_variables)]
        pub fn range_by_priority_seq<__R>(priority: i32, range: __R) -> __rk::Scan
        where
            __R: __rk::SortsByValue<__rk_no_range::seq>,
        {
            __rk::Scan::none()
        }
        #[inline]
        fn __rk_prefix3<'__r>(
            priority: i32,
            seq: u64,
            code: &'__r str,
        ) -> __rk::Result<__rk::Leading, __rk::EncodeError> {
            __K2::extend(Self::__rk_prefix2(priority, seq), &code, "code")
        }
        ///Every row whose `priority`, `seq` and `code` are the given values.
        #[inline]
        pub fn scan_by_priority_seq_code<'__r>(
            priority: i32,
            seq: u64,
            code: &'__r str,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            Self::__rk_prefix3(priority, seq, code).map(__rk::Leading::scan_eq)
        }
        ///Every row whose `priority` and `seq` are the given values and whose `code` is in `range`. The field sorts descending: the rows come largest (newest) first. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_priority_seq_code<'__r>(
            priority: i32,
            seq: u64,
            range: impl __rk::RangeBounds<&'__r str>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K2::scan_range(Self::__rk_prefix2(priority, seq), &range, "code")
        }
        #[inline]
        fn __rk_prefix4<'__r>(
            priority: i32,
            seq: u64,
            code: &'__r str,
            ts: u64,
        ) -> __rk::Result<__rk::Leading, __rk::EncodeError> {
            __K3::extend(Self::__rk_prefix3(priority, seq, code)?, &ts, "ts")
        }
        ///Every row whose `priority`, `seq`, `code` and `ts` are the given values.
        #[inline]
        pub fn scan_by_priority_seq_code_ts<'__r>(
            priority: i32,
            seq: u64,
            code: &'__r str,
            ts: u64,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            Self::__rk_prefix4(priority, seq, code, ts).map(__rk::Leading::scan_eq)
        }
        ///Every row whose `priority`, `seq` and `code` are the given values and whose `ts` is in `range`. The field sorts descending: the rows come largest (newest) first. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_priority_seq_code_ts<'__r>(
            priority: i32,
            seq: u64,
            code: &'__r str,
            range: impl __rk::RangeBounds<u64>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K3::scan_range(Self::__rk_prefix3(priority, seq, code)?, &range, "ts")
        }
        ///Every row whose `priority`, `seq`, `code`, `ts` and `id` are the given values.
        #[inline]
        pub fn scan_by_priority_seq_code_ts_id<'__r>(
            priority: i32,
            seq: u64,
            code: &'__r str,
            ts: u64,
            id: OrderId,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K4::extend(Self::__rk_prefix4(priority, seq, code, ts)?, &id, "id")
                .map(__rk::Leading::scan_eq)
        }
        ///Every row whose `priority`, `seq`, `code` and `ts` are the given values and whose `id` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_priority_seq_code_ts_id<'__r>(
            priority: i32,
            seq: u64,
            code: &'__r str,
            ts: u64,
            range: impl __rk::RangeBounds<OrderId>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K4::scan_range(Self::__rk_prefix4(priority, seq, code, ts)?, &range, "id")
        }
        ///A skip-scan filter on this key's fields: `Order::filter().field(predicate)...build()` gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, `seek_hint` and `scan`).
        #[inline]
        pub fn filter() -> OrderFilter {
            OrderFilter(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
        }
    }
    const _: () = ::core::assert!(
        <__K0 as __Codec<i32>>::WIDTH + <__K1 as __Codec<u64>>::WIDTH
            + <__K2 as __Codec<String>>::WIDTH + <__K3 as __Codec<u64>>::WIDTH
            + <__K4 as __Codec<OrderId>>::WIDTH <= 64,
        "row key is longer than max_len = 64 (priority 4 + seq 8 + code 4 + ts 8 + id ?)",
    );
    const _: () = ::core::assert!(
        <__K0 as __Codec<i32>>::WIDTH + <__K1 as __Codec<u64>>::WIDTH
            + <__K2 as __Codec<String>>::WIDTH + <__K3 as __Codec<u64>>::WIDTH
            + <__K4 as __Codec<OrderId>>::WIDTH <= 32767,
        "row key is longer than HBase's limit of 32767 bytes (priority 4 + seq 8 + code 4 + ts 8 + id ?)",
    );
};
