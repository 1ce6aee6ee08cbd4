//! Adversarial cases for any tool, and the assertion that none of them gets
//! through. Enable the `testing` feature in your dev-dependencies.
//!
//! Given a tool's definition and one valid call, [`attacks`] derives the
//! calls an attacker would make: every required field removed; unknown
//! fields (`price`, `tenant_id`, `admin`, `__proto__`); every field with every
//! wrong JSON type and with `null`; values one step outside each range and
//! length; pattern breakers; values outside each enum; integers beyond 64
//! bits; floats for integers; duplicate keys; depth bombs; oversize payloads;
//! non-object roots; trailing garbage; invalid UTF-8; lone surrogates; and,
//! with [`Attacks::cross_tenant`], references to another tenant's objects.
//!
//! [`assert_all_rejected`] runs them through a toolbox. It first makes the
//! valid call and requires it to succeed and to move the side-effect count
//! you give it: a count that does not see the side effect would prove
//! nothing. Then it fails unless each attack is rejected with an expected
//! code and leaves the count where it was, naming every attack that did not.
//!
//! ```
//! use toolgate::testing;
//! # use toolgate::{tool, ToolContext, ToolError, Toolbox};
//! # use std::sync::atomic::{AtomicUsize, Ordering};
//! # #[derive(Default)] struct Hotels { bookings: AtomicUsize }
//! # /// Book a hotel.
//! # #[tool(effect = write)]
//! # fn book_hotel(h: &Hotels, #[garde(pattern(r"^h_[a-z0-9]{8}$"))] hotel_id: String, #[garde(range(min = 1, max = 30))] nights: u8) -> Result<(), ToolError> {
//! #     h.bookings.fetch_add(1, Ordering::SeqCst); let _ = (hotel_id, nights); Ok(())
//! # }
//! # let mut toolbox = Toolbox::new(Hotels::default());
//! # toolbox.register(BookHotel).unwrap();
//! # let ctx = ToolContext::new("u", "t", "r").allow_tools(["book_hotel"]);
//! # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! # rt.block_on(async {
//! let attacks = testing::attacks(BookHotel::definition(), r#"{"hotel_id":"h_seaview1","nights":2}"#)?;
//! testing::assert_all_rejected(&toolbox, &ctx, &attacks, |h| h.bookings.load(Ordering::SeqCst)).await;
//! # Ok::<(), testing::AttackError>(())
//! # }).unwrap();
//! ```
//!
//! Beside the attacks: [`assert_approvals_hold`] attacks a call that needs
//! approval, [`assert_store_conforms`] is the suite every
//! [`EffectStore`](crate::EffectStore) runs, [`ManualClock`] moves time for
//! both, and [`check_arguments`] and its kin say what gates 1–3 make of a
//! call's bytes, for differential tests and fuzzing.

#![allow(clippy::panic)] // the assertions below are test assertions

mod approvals;
mod arguments;
mod attacks;
mod clock;
mod store;

pub use approvals::{ApprovalCase, assert_approvals_hold};
pub use arguments::{
    check_arguments, check_arguments_gate_by_gate, checked_before_serde, read_without_schema,
};
pub use attacks::{Attack, AttackError, AttackSuite, Attacks, assert_all_rejected, attacks};
pub use clock::ManualClock;
pub use store::assert_store_conforms;
