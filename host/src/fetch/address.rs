//! Which addresses a fetch may connect to. The URL parser (WHATWG, the `url` crate) has
//! already turned every IPv4 spelling — decimal `2852039166`, octal `0251.0376.0251.0376`,
//! hex `0xa9fea9fe`, short `169.254.43518` — into a plain address; here each address the
//! host stands for is classified, IPv4 embedded in IPv6 included, before any connection.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use url::{Host, Url};

use super::error::FetchFailure;

/// Environment variable that also refuses loopback and private addresses.
pub const STRICT_ENV: &str = crate::env::FETCH_STRICT;

/// What kind of network an address belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    Public,
    Loopback,
    Private,
    LinkLocal,
    Multicast,
    Broadcast,
    Reserved,
    Unspecified,
    /// Cloud instance-metadata endpoints that sit outside link-local ranges.
    CloudMetadata,
}

impl AddressClass {
    fn label(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::LinkLocal => "link-local",
            Self::Multicast => "multicast",
            Self::Broadcast => "broadcast",
            Self::Reserved => "reserved",
            Self::Unspecified => "unspecified",
            Self::CloudMetadata => "a cloud metadata endpoint",
        }
    }

    /// Loopback and private networks are the user's own (a local dev server, an
    /// intranet wiki); only strict mode refuses them.
    fn refused(self, strict: bool) -> bool {
        match self {
            Self::Public => false,
            Self::Loopback | Self::Private => strict,
            _ => true,
        }
    }
}

/// Whether `CTX_FETCH_STRICT` asks for strict mode: an on/off word
/// ([`crate::lenient::flag`]); a value that is neither is strict (fail safe), logged
/// once per process, and shown by `cm doctor`.
pub fn strict_from_env() -> bool {
    strict_from(std::env::var_os(STRICT_ENV))
}

fn strict_from(value: Option<std::ffi::OsString>) -> bool {
    match crate::lenient::EnvFlag::of(value) {
        crate::lenient::EnvFlag::Unset => false,
        crate::lenient::EnvFlag::Set(on) => on,
        crate::lenient::EnvFlag::Unknown(value) => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| tracing::warn!("{}", unknown_strict_value(&value)));
            true
        }
    }
}

/// The one line saying an unknown `CTX_FETCH_STRICT` value made fetches strict.
pub fn unknown_strict_value(value: &str) -> String {
    format!(
        "{STRICT_ENV}={:?} is not on/off (1, true, yes, on / 0, false, no, off): strict mode is on",
        value.trim()
    )
}

/// Classify one address; IPv4 carried inside IPv6 is judged as the IPv4 it carries.
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, d] = ip.octets();
    match (a, b) {
        _ if ip.is_unspecified() => AddressClass::Unspecified,
        _ if ip.is_broadcast() => AddressClass::Broadcast,
        // Alibaba Cloud's metadata service lives in the shared (CGNAT) range.
        (100, 100) if (c, d) == (100, 200) => AddressClass::CloudMetadata,
        (0, _) => AddressClass::Reserved,
        (127, _) => AddressClass::Loopback,
        (169, 254) => AddressClass::LinkLocal,
        (10, _) | (192, 168) => AddressClass::Private,
        (172, 16..=31) | (100, 64..=127) | (198, 18..=19) => AddressClass::Private,
        (224..=239, _) => AddressClass::Multicast,
        (240..=255, _) => AddressClass::Reserved,
        _ => AddressClass::Public,
    }
}

/// AWS's IPv6 instance-metadata endpoint.
const AWS_METADATA_V6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254);

fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    if ip.is_unspecified() {
        return AddressClass::Unspecified;
    }
    if ip.is_loopback() {
        return AddressClass::Loopback;
    }
    if ip == AWS_METADATA_V6 {
        return AddressClass::CloudMetadata;
    }
    // IPv4-mapped is dialled as plain IPv4 (see `connect_addr`), so it is exactly that address.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    if let Some(v4) = embedded_v4(ip) {
        let inner = classify_v4(v4);
        if inner != AddressClass::Public {
            return inner;
        }
    }
    let s = ip.segments();
    match s[0] {
        0xfe80..=0xfebf => AddressClass::LinkLocal,
        // Deprecated site-local, then unique-local: both private networks.
        0xfec0..=0xfeff | 0xfc00..=0xfdff => AddressClass::Private,
        0xff00..=0xffff => AddressClass::Multicast,
        // Discard-only prefix 100::/64.
        0x0100 if s[1..4] == [0, 0, 0] => AddressClass::Reserved,
        // The rest of ::/96 and ::ffff:0:0/96 hold IPv4 (handled above) or nothing routable.
        0 if s[1..5] == [0, 0, 0, 0] => AddressClass::Reserved,
        _ => AddressClass::Public,
    }
}

/// The IPv4 address an IPv6 address carries: IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`) and 6to4 (`2002::/16`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] | [0, 0, 0, 0, 0, 0, _, _] => Some(low),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(low),
        [0x64, 0xff9b, 1, ..] => Some(low),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new(
            (hi >> 8) as u8,
            hi as u8,
            (lo >> 8) as u8,
            lo as u8,
        )),
        _ => None,
    }
}

/// `Err(reason)` when the policy refuses `ip`; `host` names the domain it came from, if any.
pub fn check_address(ip: IpAddr, host: Option<&str>, strict: bool) -> Result<(), FetchFailure> {
    let class = classify(ip);
    if !class.refused(strict) {
        return Ok(());
    }
    let why = if matches!(class, AddressClass::Loopback | AddressClass::Private) {
        format!("blocked by {STRICT_ENV}")
    } else {
        "blocked".to_string()
    };
    let label = class.label();
    Err(FetchFailure::Blocked(match host {
        Some(host) => format!("host {host} resolves to {ip}, which is {label} ({why})"),
        None => format!("address {ip} is {label} ({why})"),
    }))
}

/// The scheme check every hop passes before anything else.
pub fn check_scheme(url: &Url) -> Result<(), FetchFailure> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        other => Err(FetchFailure::Scheme(other.to_string())),
    }
}

/// Every address `url`'s host stands for, each one checked; the fetch connects only to
/// these (no second lookup). IP literals are checked without touching the network.
pub async fn resolve_checked(url: &Url, strict: bool) -> Result<Vec<SocketAddr>, FetchFailure> {
    check_scheme(url)?;
    let port = url
        .port_or_known_default()
        .ok_or_else(|| FetchFailure::InvalidUrl("no port".into()))?;
    let ips: Vec<IpAddr> = match url.host() {
        None => return Err(FetchFailure::InvalidUrl("no host".into())),
        Some(Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
        Some(Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
        Some(Host::Domain(domain)) => {
            let ips = lookup(domain, port).await?;
            for ip in &ips {
                check_address(*ip, Some(domain), strict)?;
            }
            return Ok(ips.into_iter().map(|ip| connect_addr(ip, port)).collect());
        }
    };
    for ip in &ips {
        check_address(*ip, None, strict)?;
    }
    Ok(ips.into_iter().map(|ip| connect_addr(ip, port)).collect())
}

async fn lookup(domain: &str, port: u16) -> Result<Vec<IpAddr>, FetchFailure> {
    #[cfg(test)]
    super::net_trace::record(format!("lookup {domain}"));
    let found = tokio::net::lookup_host((domain, port))
        .await
        .map_err(|_| FetchFailure::Resolve(domain.to_string()))?;
    let mut ips: Vec<IpAddr> = Vec::new();
    for addr in found {
        if !ips.contains(&addr.ip()) {
            ips.push(addr.ip());
        }
    }
    if ips.is_empty() {
        return Err(FetchFailure::Resolve(domain.to_string()));
    }
    Ok(ips)
}

/// IPv4-mapped IPv6 is dialled as the IPv4 it is, so it works without a dual-stack socket.
fn connect_addr(ip: IpAddr, port: u16) -> SocketAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => SocketAddr::new(IpAddr::V4(v4), port),
            None => SocketAddr::new(ip, port),
        },
        IpAddr::V4(_) => SocketAddr::new(ip, port),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_of(text: &str) -> AddressClass {
        classify(text.parse().expect("test address"))
    }

    #[test]
    fn ipv4_ranges() {
        assert_eq!(class_of("169.254.169.254"), AddressClass::LinkLocal);
        assert_eq!(class_of("0.0.0.0"), AddressClass::Unspecified);
        assert_eq!(class_of("0.1.2.3"), AddressClass::Reserved);
        assert_eq!(class_of("255.255.255.255"), AddressClass::Broadcast);
        assert_eq!(class_of("240.0.0.1"), AddressClass::Reserved);
        assert_eq!(class_of("224.0.0.251"), AddressClass::Multicast);
        assert_eq!(class_of("127.0.0.1"), AddressClass::Loopback);
        assert_eq!(class_of("127.255.0.9"), AddressClass::Loopback);
        for private in [
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
        ] {
            assert_eq!(class_of(private), AddressClass::Private, "{private}");
        }
        assert_eq!(class_of("100.100.100.200"), AddressClass::CloudMetadata);
        for public in ["8.8.8.8", "172.32.0.1", "93.184.216.34", "100.128.0.1"] {
            assert_eq!(class_of(public), AddressClass::Public, "{public}");
        }
    }

    #[test]
    fn ipv6_ranges_and_embedded_ipv4() {
        assert_eq!(class_of("::"), AddressClass::Unspecified);
        assert_eq!(class_of("::1"), AddressClass::Loopback);
        assert_eq!(class_of("fe80::1"), AddressClass::LinkLocal);
        assert_eq!(class_of("febf::1"), AddressClass::LinkLocal);
        assert_eq!(class_of("ff02::1"), AddressClass::Multicast);
        assert_eq!(class_of("fd12:3456::1"), AddressClass::Private);
        assert_eq!(class_of("fd00:ec2::254"), AddressClass::CloudMetadata);
        assert_eq!(class_of("::ffff:169.254.169.254"), AddressClass::LinkLocal);
        assert_eq!(class_of("::ffff:a9fe:a9fe"), AddressClass::LinkLocal);
        assert_eq!(class_of("::ffff:127.0.0.1"), AddressClass::Loopback);
        assert_eq!(class_of("::169.254.169.254"), AddressClass::LinkLocal);
        assert_eq!(class_of("64:ff9b::a9fe:a9fe"), AddressClass::LinkLocal);
        assert_eq!(class_of("2002:a9fe:a9fe::1"), AddressClass::LinkLocal);
        assert_eq!(class_of("::ffff:8.8.8.8"), AddressClass::Public);
        assert_eq!(class_of("2606:4700::1111"), AddressClass::Public);
    }

    #[test]
    fn loopback_and_private_pass_unless_strict() {
        let lo: IpAddr = "127.0.0.1".parse().expect("ip");
        assert!(check_address(lo, None, false).is_ok());
        let refused = check_address(lo, Some("localhost"), true).expect_err("strict");
        assert_eq!(
            refused.to_string(),
            "host localhost resolves to 127.0.0.1, which is loopback (blocked by CTX_FETCH_STRICT)"
        );
        let meta: IpAddr = "169.254.169.254".parse().expect("ip");
        assert_eq!(
            check_address(meta, None, false)
                .expect_err("metadata")
                .to_string(),
            "address 169.254.169.254 is link-local (blocked)"
        );
    }

    #[test]
    fn strict_env_values() {
        assert!(strict_from(Some("1".into())));
        assert!(strict_from(Some(" TRUE ".into())));
        assert!(strict_from(Some("on".into())));
        assert!(strict_from(Some("Yes".into())));
        assert!(!strict_from(Some("0".into())));
        assert!(!strict_from(Some("off".into())));
        assert!(!strict_from(Some("".into())));
        assert!(!strict_from(None));
        // Neither on nor off: strict, the safe side.
        assert!(strict_from(Some("strict".into())));
    }

    #[test]
    fn every_spelling_of_the_metadata_address_parses_to_it() {
        let metadata: Host<&str> = Host::Ipv4(Ipv4Addr::new(169, 254, 169, 254));
        for spelling in [
            "http://169.254.169.254/",
            "http://2852039166/",
            "http://0251.0376.0251.0376/",
            "http://0xa9fea9fe/",
            "http://0xA9.0xFE.0xA9.0xFE/",
            "http://169.254.43518/",
            "http://169.16689662/",
            "http://%31%36%39.254.169.254/",
            "http://169.254.169.254./",
        ] {
            let url = Url::parse(spelling).expect("parses");
            assert_eq!(url.host(), Some(metadata.clone()), "{spelling}");
        }
    }

    #[test]
    fn mapped_addresses_are_dialled_as_ipv4() {
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().expect("ip");
        assert_eq!(
            connect_addr(mapped, 80),
            "127.0.0.1:80".parse().expect("addr")
        );
    }
}
