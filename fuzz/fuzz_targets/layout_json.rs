//! Layouts as JSON (`DynLayout::from_json`), as a program or a person
//! wrote them: any text is read or refused without a panic, and a layout
//! it reads writes the same JSON back. The corpus starts from the JSON of
//! valid layouts, so the fuzzer mutates real ones (bucket counts, widths,
//! discriminants, names).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rowkey_core::DynLayout;

fuzz_target!(|text: &str| {
    let Ok(layout) = DynLayout::from_json(text) else {
        return;
    };
    let json = layout.layout().to_json();
    let again = DynLayout::from_json(&json).expect("a layout's own JSON reads back");
    assert_eq!(again.layout().id(), layout.layout().id());
    assert_eq!(again.layout().to_json(), json);
});
