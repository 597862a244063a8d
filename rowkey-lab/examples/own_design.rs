//! Your own key designs in the lab: page views of a web shop, three ways.
//! `cargo run --release -p rowkey-lab --example own_design`
use rowkey_core::prelude::*;
use rowkey_lab::{report, Access, BoxError, Design, Lab, Query, RedbStore};

/// Your event type: a page view of a shop, at a time in milliseconds.
struct View {
    shop: u32,
    at: i64,
}

#[derive(RowKey)]
struct TimeFirst {
    at: i64,
    shop: u32,
}
#[derive(RowKey)]
#[salt(buckets = 8)]
struct Salted {
    at: i64,
    shop: u32,
}
#[derive(RowKey)]
#[salt(buckets = 8, by(shop))]
struct ShopNewest {
    shop: u32,
    #[desc_ts]
    at: i64,
}

fn main() -> Result<(), BoxError> {
    // 200,000 views, 10 ms apart, spread over 300 shops.
    let views: Vec<View> = (0..200_000i64)
        .map(|i| View {
            shop: (i * 7919 % 300) as u32,
            at: 1_700_000_000_000 + i * 10,
        })
        .collect();
    let hour = (1_700_000_500_000, 1_700_004_100_000);
    const QUERY: &str = "shop 42's views in an hour";
    let of_shop = |v: &View| v.shop == 42;
    // Each design carries its own plan for the query: the read its key
    // serves. A design without one reads the whole table (the query's plan).
    let report = Lab::new(views)
        .design(
            Design::new("time_first", |v: &View| TimeFirst {
                at: v.at,
                shop: v.shop,
            })
            .plan(QUERY, move || {
                Ok::<_, BoxError>(
                    Access::scan(TimeFirst::range_by_at(hour.0..hour.1)).filter(of_shop),
                )
            }),
        )
        .design(
            Design::new("salted", |v: &View| Salted {
                at: v.at,
                shop: v.shop,
            })
            .plan(QUERY, move || {
                Ok::<_, BoxError>(Access::scan(Salted::range_by_at(hour.0..hour.1)).filter(of_shop))
            }),
        )
        .design(
            Design::new("shop_newest", |v: &View| ShopNewest {
                shop: v.shop,
                at: v.at,
            })
            .plan(QUERY, move || {
                Ok::<_, BoxError>(Access::scan(ShopNewest::range_by_shop_at(
                    42,
                    hour.0..hour.1,
                )))
            }),
        )
        .query(Query::new(
            QUERY,
            move |v: &View| v.shop == 42 && (hour.0..hour.1).contains(&v.at),
            move |d: &Design<View>| Ok::<_, BoxError>(Access::scan(d.scan_all()).filter(of_shop)),
        ))
        .run(&mut RedbStore::create(&std::env::temp_dir())?)?;
    print!("{}", report::format_table(&report));
    let out = report::write(&report, &std::env::temp_dir().join("rowkey-lab-own-design"))?;
    println!("heatmaps and report: {}", out.html.display());
    // The time-first key writes every recent view to one region; the salted ones do not.
    assert!(
        report
            .design("time_first")
            .unwrap()
            .ingest
            .recent_busiest_region
            > 0.9
    );
    assert!(
        report
            .design("salted")
            .unwrap()
            .ingest
            .recent_busiest_region
            < 0.5
    );
    Ok(())
}
