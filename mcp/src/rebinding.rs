//! Against DNS rebinding: the `Host` and `Origin` a request may carry,
//! as MCP's streamable HTTP transport requires a server to check them.
//!
//! The allowed names are read once, when the router is built; a request
//! is then compared with them without allocating. The rules are rmcp's
//! (whose own check the router turns off, so that it does not copy and
//! re-read the lists on every request): a host matches by name, and by
//! port when the allowed entry names one; an origin by scheme, host and
//! port, an origin without a port standing for its scheme's default.

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header, uri::Authority};
use axum::response::{IntoResponse, Response};

/// The hosts and origins a router answers.
#[derive(Debug)]
pub(crate) struct Allowed {
    /// `None`: any host.
    hosts: Option<Vec<Named>>,
    origins: Vec<AllowedOrigin>,
}

/// A host name, lowercase, without IPv6 brackets, and its port if named.
#[derive(Debug)]
struct Named {
    host: String,
    port: Option<u16>,
}

#[derive(Debug)]
enum AllowedOrigin {
    /// A browser's `Origin: null` (a sandboxed page, a file).
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Port,
    },
}

#[derive(Clone, Copy, Debug)]
enum Port {
    /// `:*`.
    Any,
    /// Written without a port, for a scheme with no default one.
    Unnamed,
    Exact(u16),
}

/// The names a request must use when the config names none.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

impl Allowed {
    /// `hosts`: the config's allowed hosts (`None`: loopback names only;
    /// empty: any host). `origins`: `null`, or `scheme://host` with
    /// `:port`, `:*` or neither (the scheme's default port); an entry that
    /// does not parse allows nothing.
    pub(crate) fn new(hosts: Option<&[String]>, origins: &[String]) -> Allowed {
        let hosts = match hosts {
            None => Some(LOOPBACK.iter().filter_map(|h| allowed_host(h)).collect()),
            Some([]) => None,
            Some(hosts) => Some(hosts.iter().filter_map(|h| allowed_host(h)).collect()),
        };
        Allowed {
            hosts,
            origins: origins.iter().filter_map(|o| allowed_origin(o)).collect(),
        }
    }

    /// The answer to a request from a host or origin not allowed: `403`,
    /// or `400` for a request that names no host or one that is not a
    /// host (whatever the allowed hosts); `None` to serve it.
    pub(crate) fn refuse(&self, uri: &Uri, headers: &HeaderMap) -> Option<Response> {
        let sent = headers.get(header::HOST);
        let served = match sent.map(|value| value.to_str()) {
            Some(Ok(value)) => match plain(value) {
                // The usual `name` or `name:port`, read in place.
                Some((host, port)) => self.allows_host(host, port),
                // Anything else as the `http` crate reads an authority.
                None => match Authority::try_from(value) {
                    Ok(authority) => self.allows_host(authority.host(), authority.port_u16()),
                    Err(_) => return Some(not_a_host(sent)),
                },
            },
            Some(Err(_)) => return Some(not_a_host(sent)),
            // HTTP/2 carries it in `:authority`.
            None => match uri.authority() {
                Some(authority) => self.allows_host(authority.host(), authority.port_u16()),
                None => return Some(not_a_host(sent)),
            },
        };
        if !served {
            let host = sent.map_or_else(
                || {
                    uri.authority()
                        .map(|a| a.as_str().as_bytes())
                        .unwrap_or_default()
                },
                HeaderValue::as_bytes,
            );
            tracing::warn!(target: "toolgate::audit", event = "host_refused", host = %host.escape_ascii());
            return Some(refused(
                StatusCode::FORBIDDEN,
                "the Host header is not allowed",
            ));
        }
        let origin = headers.get(header::ORIGIN)?;
        let served = origin
            .to_str()
            .ok()
            .is_some_and(|origin| self.allows_origin(origin));
        if served {
            return None;
        }
        tracing::warn!(target: "toolgate::audit", event = "origin_refused", origin = ?origin);
        Some(refused(
            StatusCode::FORBIDDEN,
            "the Origin header is not allowed",
        ))
    }

    fn allows_origin(&self, origin: &str) -> bool {
        let origin = origin.trim();
        if origin.eq_ignore_ascii_case("null") {
            return self
                .origins
                .iter()
                .any(|allowed| matches!(allowed, AllowedOrigin::Null));
        }
        let Ok(uri) = Uri::try_from(origin) else {
            return false;
        };
        let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
            return false;
        };
        let port = authority.port_u16().or_else(|| default_port(scheme));
        self.origins.iter().any(|allowed| match allowed {
            AllowedOrigin::Null => false,
            AllowedOrigin::Tuple {
                scheme: a_scheme,
                host: a_host,
                port: a_port,
            } => {
                a_scheme.eq_ignore_ascii_case(scheme)
                    && same_host(a_host, authority.host())
                    && match a_port {
                        Port::Any | Port::Unnamed => true,
                        Port::Exact(a_port) => port == Some(*a_port),
                    }
            }
        })
    }
}

/// A `Host` of a plain name and an optional port, as almost every request
/// sends it: the name and the port. `None` for any other spelling (IPv6,
/// user info, a port out of range), which the `http` crate reads instead.
fn plain(value: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = match value.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (value, None),
    };
    let name = |b: u8| b.is_ascii_alphanumeric() || b == b'.' || b == b'-';
    if host.is_empty() || !host.bytes().all(name) {
        return None;
    }
    match port {
        None => Some((host, None)),
        Some(port) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            Some((host, Some(port.parse().ok()?)))
        }
        Some(_) => None,
    }
}

impl Allowed {
    fn allows_host(&self, host: &str, port: Option<u16>) -> bool {
        self.hosts.as_ref().is_none_or(|hosts| {
            hosts.iter().any(|named| {
                same_host(&named.host, host) && named.port.is_none_or(|p| port == Some(p))
            })
        })
    }
}

/// `400` for a request whose `Host` (`sent`) is missing or no host.
fn not_a_host(sent: Option<&HeaderValue>) -> Response {
    let host = sent.map(HeaderValue::as_bytes).unwrap_or_default();
    tracing::warn!(target: "toolgate::audit", event = "host_refused", host = %host.escape_ascii());
    refused(StatusCode::BAD_REQUEST, "the Host header is not a host")
}

/// Whether `host` (as sent: any case, IPv6 in brackets) is `allowed`
/// (as kept: lowercase, no brackets).
fn same_host(allowed: &str, host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    allowed.eq_ignore_ascii_case(host)
}

fn normalized(host: &str) -> String {
    host.trim_matches('[')
        .trim_matches(']')
        .to_ascii_lowercase()
}

fn default_port(scheme: &str) -> Option<u16> {
    if scheme.eq_ignore_ascii_case("http") {
        Some(80)
    } else if scheme.eq_ignore_ascii_case("https") {
        Some(443)
    } else {
        None
    }
}

/// An allowed host: `name` or `name:port`.
fn allowed_host(allowed: &str) -> Option<Named> {
    let allowed = allowed.trim();
    if allowed.is_empty() {
        return None;
    }
    Some(match Authority::try_from(allowed) {
        Ok(authority) => Named {
            host: normalized(authority.host()),
            port: authority.port_u16(),
        },
        Err(_) => Named {
            host: normalized(allowed),
            port: None,
        },
    })
}

/// An allowed origin: `null`, or `scheme://host` with `:port`, `:*` or
/// neither.
fn allowed_origin(allowed: &str) -> Option<AllowedOrigin> {
    let allowed = allowed.trim();
    if allowed.eq_ignore_ascii_case("null") {
        return Some(AllowedOrigin::Null);
    }
    let (text, any_port) = match allowed.strip_suffix(":*") {
        Some(base) => (base, true),
        None => (allowed, false),
    };
    let uri = Uri::try_from(text.trim()).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    let port = match (any_port, authority.port_u16()) {
        (true, None) => Port::Any,
        // `https://host:443:*` is no origin.
        (true, Some(_)) => return None,
        (false, Some(port)) => Port::Exact(port),
        (false, None) => default_port(&scheme).map_or(Port::Unnamed, Port::Exact),
    };
    Some(AllowedOrigin::Tuple {
        host: normalized(authority.host()),
        scheme,
        port,
    })
}

fn refused(status: StatusCode, message: &'static str) -> Response {
    (status, message).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(host) = host {
            headers.insert(header::HOST, host.parse().unwrap());
        }
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, origin.parse().unwrap());
        }
        headers
    }

    fn status(allowed: &Allowed, host: Option<&str>, origin: Option<&str>) -> u16 {
        let uri = Uri::from_static("/mcp");
        allowed
            .refuse(&uri, &request(host, origin))
            .map_or(200, |r| r.status().as_u16())
    }

    fn owned(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn loopback_names_by_default_any_port_any_case() {
        let allowed = Allowed::new(None, &[]);
        for host in [
            "localhost",
            "LocalHost:8080",
            "127.0.0.1:3000",
            "[::1]:80",
            "[::1]",
        ] {
            assert_eq!(status(&allowed, Some(host), None), 200, "{host}");
        }
        for host in ["example.com", "localhost.example.com", "127.0.0.2", "[::2]"] {
            assert_eq!(status(&allowed, Some(host), None), 403, "{host}");
        }
        assert_eq!(status(&allowed, Some("bad host"), None), 400);
        assert_eq!(status(&allowed, None, None), 400);
    }

    /// The in-place reading of a plain `Host` agrees with the `http`
    /// crate's on everything it reads, and leaves the rest to it.
    #[test]
    fn a_plain_host_is_read_as_the_http_crate_reads_it() {
        let read_in_place = [
            "a",
            "a:1",
            "a:0",
            "a:080",
            "a:65535",
            "A.B-c:8443",
            "1.2.3.4:5",
            "a..b",
            "-",
            "x-:7",
        ];
        let left_to_http = [
            "a:65536", "a:", ":1", "a:1:2", "a@b:1", "[::1]:80", "a b", "", "é:1", "a:+1",
        ];
        for value in read_in_place {
            let by_http = Authority::try_from(value)
                .ok()
                .map(|a| (a.host().to_owned(), a.port_u16()));
            let in_place = plain(value).map(|(host, port)| (host.to_owned(), port));
            assert!(in_place.is_some(), "{value:?} is not read in place");
            assert_eq!(in_place, by_http, "{value:?}");
        }
        for value in left_to_http {
            assert_eq!(plain(value), None, "{value:?}");
        }
    }

    #[test]
    fn configured_hosts_match_by_port_when_they_name_one() {
        let allowed = Allowed::new(
            Some(&owned(&["tools.example.com", "api.example.com:8443"])),
            &[],
        );
        assert_eq!(status(&allowed, Some("tools.example.com:1"), None), 200);
        assert_eq!(status(&allowed, Some("API.example.com:8443"), None), 200);
        assert_eq!(status(&allowed, Some("api.example.com"), None), 403);
        assert_eq!(status(&allowed, Some("api.example.com:443"), None), 403);
        assert_eq!(status(&allowed, Some("localhost"), None), 403);
        // An empty list accepts any host, but not a request without one.
        let any = Allowed::new(Some(&[]), &[]);
        assert_eq!(status(&any, Some("anything.example"), None), 200);
        assert_eq!(status(&any, Some("bad host"), None), 400);
        assert_eq!(status(&any, None, None), 400);
    }

    #[test]
    fn origins_match_by_scheme_host_and_port() {
        let allowed = Allowed::new(
            Some(&[]),
            &owned(&[
                "https://app.example.com:443",
                "http://localhost:*",
                "http://[::1]:*",
                "null",
                "not an origin",
            ]),
        );
        for origin in [
            "https://app.example.com",
            "HTTPS://APP.example.com:443",
            "http://localhost:5173",
            "http://localhost",
            "http://[::1]:9",
            "null",
        ] {
            assert_eq!(
                status(&allowed, Some("localhost"), Some(origin)),
                200,
                "{origin}"
            );
        }
        for origin in [
            "https://app.example.com:8443",
            "http://app.example.com",
            "https://localhost:5173",
            "https://evil.example.com",
            "not an origin",
            "",
        ] {
            assert_eq!(
                status(&allowed, Some("localhost"), Some(origin)),
                403,
                "{origin}"
            );
        }
        // No Origin: not a browser, served.
        assert_eq!(status(&allowed, Some("localhost"), None), 200);
    }

    #[test]
    fn an_empty_origin_list_refuses_every_origin() {
        let allowed = Allowed::new(Some(&[]), &[]);
        assert_eq!(
            status(&allowed, Some("localhost"), Some("http://localhost:1")),
            403
        );
        assert_eq!(status(&allowed, Some("localhost"), Some("null")), 403);
        assert_eq!(status(&allowed, Some("localhost"), None), 200);
    }
}
