//! Booking a hotel: the model chooses which hotel and how many nights; the
//! server looks up everything else, the price above all.
//!
//! An agent steered by injected text may send `"price": 1`, a hotel id that
//! belongs to nothing, or `nights: -1`. Each is refused before the booking is
//! written, and [`Hotels::bookings`] is the spy the tests read to prove it.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::Serialize;
use toolgate::{DomainCode, ToolContext, ToolError, tool};

/// The hotel id names no hotel.
pub const UNKNOWN_HOTEL: DomainCode = DomainCode::new("UNKNOWN_HOTEL");

/// A hotel in the catalogue.
#[derive(Clone, Debug)]
pub struct Hotel {
    /// `h_` and eight lowercase letters or digits.
    pub id: String,
    /// Shown to the traveller.
    pub name: String,
    /// Set by the server; never an argument.
    pub nightly_rate_cents: u64,
}

/// A confirmed booking: what the tool returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Booking {
    /// The booking's id.
    pub booking_id: String,
    /// The booked hotel.
    pub hotel_id: String,
    /// The actor from the request context, never from the model.
    pub guest: String,
    /// The number of nights.
    pub nights: u8,
    /// The nightly rate times the nights, computed here.
    pub total_cents: u64,
}

/// The application state: the catalogue and the bookings written so far.
#[derive(Debug, Default)]
pub struct Hotels {
    catalogue: HashMap<String, Hotel>,
    bookings: Mutex<Vec<Booking>>,
}

impl Hotels {
    /// A catalogue of three hotels and no bookings.
    pub fn demo() -> Self {
        let catalogue = [
            ("h_seaview1", "Seaview", 12_000),
            ("h_alpine22", "Alpine Lodge", 18_500),
            ("h_central3", "Central", 9_900),
        ]
        .into_iter()
        .map(|(id, name, rate)| {
            let hotel = Hotel {
                id: id.to_owned(),
                name: name.to_owned(),
                nightly_rate_cents: rate,
            };
            (hotel.id.clone(), hotel)
        })
        .collect();
        Hotels {
            catalogue,
            bookings: Mutex::default(),
        }
    }

    /// Every booking written: the side effect that a rejected call must
    /// never reach.
    pub fn bookings(&self) -> Vec<Booking> {
        self.bookings.lock().map(|b| b.clone()).unwrap_or_default()
    }

    fn create_booking(&self, guest: &str, hotel: &Hotel, nights: u8) -> Result<Booking, ToolError> {
        let mut bookings = self
            .bookings
            .lock()
            .map_err(|_| ToolError::internal("the booking store is poisoned"))?;
        let booking = Booking {
            booking_id: format!("b_{}", bookings.len() + 1),
            hotel_id: hotel.id.clone(),
            guest: guest.to_owned(),
            nights,
            total_cents: hotel.nightly_rate_cents * u64::from(nights),
        };
        bookings.push(booking.clone());
        Ok(booking)
    }
}

/// Book a hotel room for the signed-in traveller. The server looks up the
/// nightly rate and computes the total; the price is never an argument.
#[tool(scope = "bookings:write", effect = write)]
pub async fn book_hotel(
    ctx: &ToolContext,
    hotels: &Hotels,
    /// The hotel's id as hotel search returned it: `h_` and eight lowercase
    /// letters or digits.
    #[garde(pattern(r"^h_[a-z0-9]{8}$"))]
    hotel_id: String,
    /// How many nights to stay.
    #[garde(range(min = 1, max = 30))]
    nights: u8,
) -> Result<Booking, ToolError> {
    let Some(hotel) = hotels.catalogue.get(&hotel_id) else {
        return Err(ToolError::reject(
            UNKNOWN_HOTEL,
            "no hotel has this id; use an id from hotel search",
        )
        .at("/hotel_id")
        .retryable(true));
    };
    hotels.create_booking(ctx.actor(), hotel, nights)
}
