//! Thrift bindings generated from BMv2's IDL by `regen.sh` (thrift 0.17).
//! Not edited by hand; regenerate instead. (`gen` is a reserved word in
//! edition 2024, hence the module name.) Lints are off here: the generator's
//! style is not ours to fix.

#[allow(clippy::all, unused, non_camel_case_types, non_snake_case)]
#[rustfmt::skip]
pub mod simple_switch;
#[allow(clippy::all, unused, non_camel_case_types, non_snake_case)]
#[rustfmt::skip]
pub mod standard;
