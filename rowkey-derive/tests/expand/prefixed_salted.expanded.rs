///A skip-scan filter on [`ByCustomer`] keys under construction: `ByCustomer::filter()`, one method per field, then `build()`.
#[must_use = "a filter does nothing until `build()` and a scan use it"]
#[allow(dead_code)]
struct ByCustomerFilter(::rowkey_core::__private::FilterParts);
const _: () = {
    use ::rowkey_core::__private::{self as __rk, traits::*};
    type __Salt = __rk::ByteSalt;
    type __K0 = __rk::Padded<8, 0, __rk::Asc, __rk::Fwd>;
    type __K1 = __rk::Fixed<__rk::Asc, __rk::Fwd>;
    const __FIELDS: &[__rk::FieldLayout] = &[
        __rk::field!(
            "customer", "String" as "str", Padded { len : 8, pad : 0, desc : false }, <
            __K0 as __Codec < String >> ::LAYOUT_WIDTH, __rk::read:: < __K0, __rk::String
            >, 0, 0
        ),
        __rk::field!(
            "order", "Order", BigEndian { desc : false }, < __K1 as __Codec < Order >>
            ::LAYOUT_WIDTH, __rk::read_opaque:: < __K1, Order >, 0, 0
        )
            .__key_field(<__K1 as __Codec<Order>>::KEY_FIELD),
    ];
    __rk::layout!("ByCustomer", Binary, b"I", salt(4, Xxh3, ["customer"]));
    #[automatically_derived]
    impl __rk::RowKey for ByCustomer {
        const FIXED_LEN: __rk::Option<usize> = __rk::Option::Some(Self::LEN);
        const MIN_LEN: usize = Self::LEN;
        const SALT_BUCKETS: __rk::Option<u16> = __rk::Option::Some(4);
        const PREFIX: &'static [u8] = b"I";
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
            __out[..1].copy_from_slice(b"I");
            let __p1 = __K0::encode(&self.customer, __out, 2, "customer")?;
            let __p2 = __K1::encode(&self.order, __out, __p1, "order")?;
            let __b = __rk::salt::<__rk::Xxh3>(&[&__out[2..__p1]], 4);
            __Salt::write(&mut __out[1..], __b);
            __rk::Result::Ok(__p2)
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for ByCustomer {
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            __rk::decode_fixed(
                __input,
                Self::LEN,
                |__input: &'__de [u8]| {
                    __rk::check_prefix(__input, b"I")?;
                    __rk::decode_salt::<__Salt>(&__input[1..], 4)?;
                    let (__v0, __p) = __K0::decode(__input, 2, "customer")?;
                    let (__v1, __p) = __K1::decode(__input, __p, "order")?;
                    __rk::finish(__input, __p)?;
                    __rk::Result::Ok(Self {
                        customer: __v0,
                        order: __v1,
                    })
                },
            )
        }
    }
    __rk::if_alloc! {
        #[automatically_derived] impl ByCustomerFilter { #[doc =
        "Only keys whose `customer` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn customer < '__r, __P : __rk::FieldPredicate < & '__r str > >
        (self, customer : __P) -> Self { ByCustomerFilter(__K0::constrain(self.0, 0,
        customer, "customer", __rk::PhantomData)) } #[doc =
        "Only keys whose `order` matches: a value, a range (in value order, also for a descending field) or `any_of` them. Called twice, both must hold."]
        #[inline] pub fn order < __P : __rk::FieldPredicate < Order > > (self, order :
        __P) -> Self { ByCustomerFilter(__K1::constrain(self.0, 1, order, "order",
        __rk::PhantomData)) } #[doc =
        r" The filter, or the first predicate value that cannot be encoded"] #[doc =
        r" (a `#[fixed]` string that is too long, a timestamp out of range)."] #[inline]
        pub fn build(self) -> __rk::Result < __rk::KeyFilter, __rk::EncodeError > { let
        mut __parts = self.0; let __bucket = match (__parts.single(0),) {
        (__rk::Option::Some(__s0),) => match (< __K0 as __rk::FieldDecode < '_,
        __rk::String >> ::decode(__s0, 0, "customer"),) { (__rk::Result::Ok((__v0, _)),)
        => __rk::Option::Some(ByCustomer::__rk_bucket(& __v0) ?), _ =>
        __rk::Option::None, }, _ => __rk::Option::None, }; if let __rk::Option::Some(__b)
        = __bucket { __parts.in_bucket(__b); } __parts.build() } }
    }
    #[automatically_derived]
    impl ByCustomer {
        /// The length of every key of this layout, in bytes.
        pub const LEN: usize = 2 + <__K0 as __Codec<String>>::WIDTH
            + <__K1 as __Codec<Order>>::WIDTH;
        /// The key as a fixed-size array, or the field that cannot be encoded.
        #[inline(always)]
        pub fn try_encode(&self) -> __rk::Result<[u8; Self::LEN], __rk::EncodeError> {
            let mut __buf = [0u8; Self::LEN];
            __rk::RowKey::encode_into(self, &mut __buf).map(|_| __buf)
        }
        #[inline]
        fn __rk_bucket<__T0: ?Sized>(
            customer: &__T0,
        ) -> __rk::Result<u8, __rk::EncodeError>
        where
            __K0: __Codec<__T0>,
        {
            __rk::Result::Ok({
                let mut __buf = [0u8; <__K0 as __Codec<String>>::WIDTH];
                let __p = __K0::encode(customer, &mut __buf, 0, "customer")?;
                __rk::salt::<__rk::Xxh3>(&[&__buf[..__p]], 4)
            })
        }
        /// The salt bucket of this key, or the `by` field that cannot be encoded.
        #[inline]
        pub fn try_bucket(&self) -> __rk::Result<u8, __rk::EncodeError> {
            Self::__rk_bucket(&self.customer)
        }
        /// Where to pre-split the table: one region per salt bucket; none when unsalted.
        #[inline]
        pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
            __rk::split_points::<__Salt>(b"I", 4)
        }
        /// Every row of the table: one range per salt bucket when salted.
        #[inline]
        pub fn scan_all() -> __rk::Scan {
            __rk::Leading::all(4).family(b"I").scan_eq()
        }
        #[inline]
        fn __rk_prefix1<'__r>(
            customer: &'__r str,
        ) -> __rk::Result<__rk::Leading, __rk::EncodeError> {
            __K0::extend(
                __rk::Leading::one(Self::__rk_bucket(&customer)?).family(b"I"),
                &customer,
                "customer",
            )
        }
        ///Every row whose `customer` is the given value.
        #[inline]
        pub fn scan_by_customer<'__r>(
            customer: &'__r str,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            Self::__rk_prefix1(customer).map(__rk::Leading::scan_eq)
        }
        ///Every row whose `customer` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_customer<'__r>(
            range: impl __rk::RangeBounds<&'__r str>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K0::scan_range(__rk::Leading::all(4).family(b"I"), &range, "customer")
        }
        ///Every row whose `customer` and `order` are the given values.
        #[inline]
        pub fn scan_by_customer_order<'__r>(
            customer: &'__r str,
            order: Order,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K1::extend(Self::__rk_prefix1(customer)?, &order, "order")
                .map(__rk::Leading::scan_eq)
        }
        ///Every row whose `customer` is the given value and whose `order` is in `range`. Panics if `range` starts after its end (an empty range such as `t..t` is fine).
        pub fn range_by_customer_order<'__r>(
            customer: &'__r str,
            range: impl __rk::RangeBounds<Order>,
        ) -> __rk::Result<__rk::Scan, __rk::EncodeError> {
            __K1::scan_range(Self::__rk_prefix1(customer)?, &range, "order")
        }
        ///A skip-scan filter on this key's fields: `ByCustomer::filter().field(predicate)...build()` gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, `seek_hint` and `scan`).
        #[inline]
        pub fn filter() -> ByCustomerFilter {
            ByCustomerFilter(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
        }
    }
    const _: () = ::core::assert!(
        <__K0 as __Codec<String>>::WIDTH + <__K1 as __Codec<Order>>::WIDTH <= 32765,
        "row key is longer than HBase's limit of 32767 bytes (prefix 1 + salt 1 + customer 8 + order ?)",
    );
};
