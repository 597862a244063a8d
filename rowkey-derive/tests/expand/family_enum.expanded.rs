const _: () = {
    use ::rowkey_core::__private as __rk;
    #[automatically_derived]
    impl<'a> __rk::RowKey for Row<'a> {
        const FIXED_LEN: __rk::Option<usize> = __rk::Option::None;
        const MIN_LEN: usize = __rk::min_len(
            <Order as __rk::RowKey>::MIN_LEN,
            <ByCustomer<'static> as __rk::RowKey>::MIN_LEN,
        );
        const SALT_BUCKETS: __rk::Option<u16> = __rk::Option::None;
        const LAYOUT: &'static __rk::Layout = &__rk::Layout::__family(
            "Row",
            &[
                <Order as __rk::RowKey>::LAYOUT,
                <ByCustomer<'static> as __rk::RowKey>::LAYOUT,
            ],
        );
        #[inline]
        fn encoded_len(&self) -> usize {
            match self {
                Self::Order(__k) => __rk::RowKey::encoded_len(__k),
                Self::ByCustomer(__k) => __rk::RowKey::encoded_len(__k),
            }
        }
        #[inline]
        fn encode_into(
            &self,
            __out: &mut [u8],
        ) -> __rk::Result<usize, __rk::EncodeError> {
            match self {
                Self::Order(__k) => __rk::RowKey::encode_into(__k, __out),
                Self::ByCustomer(__k) => __rk::RowKey::encode_into(__k, __out),
            }
        }
    }
    #[automatically_derived]
    impl<'__de> __rk::DecodeRowKey<'__de> for Row<'__de> {
        /// Decodes the key as the family whose prefix it starts with.
        #[inline]
        fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
            if __input.starts_with(<Order as __rk::RowKey>::PREFIX) {
                return <Order as __rk::DecodeRowKey<'__de>>::decode(__input)
                    .map(Self::Order);
            }
            if __input.starts_with(<ByCustomer<'static> as __rk::RowKey>::PREFIX) {
                return <ByCustomer<'__de> as __rk::DecodeRowKey<'__de>>::decode(__input)
                    .map(Self::ByCustomer);
            }
            __rk::Result::Err(__rk::DecodeError::UnknownFamily {
                families: "Row",
            })
        }
    }
    #[automatically_derived]
    impl<'a> Row<'a> {
        /// Each family: its variant's name and the prefix its keys start with.
        pub const FAMILIES: &'static [(&'static str, &'static [u8])] = &[
            ("Order", <Order as __rk::RowKey>::PREFIX),
            ("ByCustomer", <ByCustomer<'static> as __rk::RowKey>::PREFIX),
        ];
        /// The name of this key's family (its variant).
        #[inline]
        pub fn family(&self) -> &'static str {
            match self {
                Self::Order(_) => "Order",
                Self::ByCustomer(_) => "ByCustomer",
            }
        }
        /// Every row of every family: one range from the smallest
        /// family prefix to the end of the largest, in table order
        /// (a salted family's rows grouped by bucket). A row between
        /// the families that belongs to none decodes to
        /// `DecodeError::UnknownFamily`.
        #[inline]
        pub fn scan_all() -> __rk::Scan {
            __rk::families_scan(Self::FAMILIES)
        }
        /// Where to pre-split the table: a boundary at each
        /// family's prefix (no region holds two families) and
        /// each family's own split points (its salt buckets).
        #[inline]
        pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
            <Self as __rk::RowKey>::LAYOUT.split_points()
        }
    }
    const _: () = ::core::assert!(
        !__rk::prefixes_overlap(
            <Order as __rk::RowKey>::PREFIX,
            <ByCustomer<'static> as __rk::RowKey>::PREFIX,
        ),
        "key families `Order` and `ByCustomer` of `Row` overlap: their prefixes are equal or one starts the other, so a key could belong to both; give them distinct #[rowkey(prefix)]es",
    );
};
