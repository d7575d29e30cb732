use super::*;

/// Every key name the design lists, in the spellings agents and tools use.
const KEY_SPELLINGS: &[&[&str]] = &[
    &[
        "authorization",
        "Authorization",
        "AUTHORIZATION",
        "proxy-authorization",
    ],
    &[
        "token",
        "TOKEN",
        "access_token",
        "GITHUB_TOKEN",
        "refreshToken",
        "x-auth-token",
    ],
    &["secret", "SECRET", "webhook_secret", "JWT-SECRET"],
    &[
        "password",
        "Password",
        "DB_PASSWORD",
        "db-password",
        "passwd",
    ],
    &[
        "api_key",
        "API_KEY",
        "api-key",
        "apiKey",
        "X-Api-Key",
        "OPENAI_API_KEY",
        "apikey",
    ],
    &["cookie", "Cookie", "set-cookie", "SESSION_COOKIE"],
    &["private_key", "PRIVATE_KEY", "private-key", "privateKey"],
    &[
        "client_secret",
        "CLIENT_SECRET",
        "client-secret",
        "clientSecret",
    ],
];

const SECRET: &str = "s3cr3t-Value_42";

fn assert_redacted(input: &str) {
    let out = redact(input);
    assert!(!out.contains(SECRET), "{input:?} leaked: {out:?}");
    assert!(out.contains(REDACTED), "{input:?} → {out:?}");
}

#[test]
fn every_key_name_in_json_is_redacted() {
    for spellings in KEY_SPELLINGS {
        for key in *spellings {
            assert_redacted(&format!(r#"{{"{key}": "{SECRET}", "user": "ann"}}"#));
            assert_redacted(&format!(r#"{{"{key}":"{SECRET}"}}"#));
            // JSON text inside a JSON string (a tool input holding a command).
            assert_redacted(&format!(
                r#"{{"command":"echo {{\"{key}\":\"{SECRET}\"}}"}}"#
            ));
        }
    }
    let out = redact(r#"{"password": "hunter2", "user": "ann"}"#);
    assert_eq!(out, r#"{"password": "[REDACTED]", "user": "ann"}"#);
}

#[test]
fn every_key_name_as_key_value_text_is_redacted() {
    for spellings in KEY_SPELLINGS {
        for key in *spellings {
            assert_redacted(&format!("{key}={SECRET}"));
            assert_redacted(&format!("export {key}={SECRET} && run"));
            assert_redacted(&format!("{key}: {SECRET}"));
            assert_redacted(&format!("  {key}: '{SECRET}'\n  user: ann"));
            assert_redacted(&format!("https://api.example.com/x?{key}={SECRET}&page=2"));
        }
    }
    assert_eq!(
        redact("TOKEN=abc123 npm publish"),
        "TOKEN=[REDACTED] npm publish"
    );
    assert_eq!(
        redact("https://x.io/cb?access_token=abc&page=2"),
        "https://x.io/cb?access_token=[REDACTED]&page=2"
    );
    assert_eq!(
        redact("password: correct horse battery\nuser: ann"),
        "password: [REDACTED]\nuser: ann"
    );
}

#[test]
fn command_line_flags_are_redacted() {
    assert_eq!(
        redact("mysql --password hunter2 -u root"),
        "mysql --password [REDACTED] -u root"
    );
    assert_eq!(
        redact("gh auth login --with-token=ghx123"),
        "gh auth login --with-token=[REDACTED]"
    );
}

#[test]
fn authorization_headers_keep_the_scheme() {
    assert_eq!(
        redact("curl -H 'Authorization: Bearer abc.def.ghi123' https://x.io"),
        "curl -H 'Authorization: Bearer [REDACTED]' https://x.io"
    );
    assert_eq!(
        redact("Authorization: Basic dXNlcjpwYXNzd29yZA=="),
        "Authorization: Basic [REDACTED]"
    );
    assert_eq!(
        redact("Authorization: token ghx_secret_1"),
        "Authorization: token [REDACTED]"
    );
    assert_eq!(
        redact(r#"{"headers":{"authorization":"Bearer eyfoo123456"}}"#),
        r#"{"headers":{"authorization":"[REDACTED]"}}"#
    );
    // A bearer token without its header name.
    assert_eq!(
        redact("use bearer Zm9vYmFyYmF6MTIz now"),
        "use bearer [REDACTED] now"
    );
    assert_eq!(redact("Cookie: sid=abc; theme=dark"), "Cookie: [REDACTED]");
}

#[test]
fn each_token_shape_is_redacted_anywhere() {
    let tokens = [
        "ghp_aBcD1234aBcD1234aBcD1234aBcD1234abcd",
        "gho_aBcD1234aBcD1234aBcD1234aBcD1234abcd",
        "ghs_aBcD1234aBcD1234aBcD1234aBcD1234abcd",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "AKIAIOSFODNN7EXAMPLE",
        "ASIAIOSFODNN7EXAMPLE",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxp-123456789012-1234567890123-AbCdEfGh",
        "sk-proj-AbCdEf1234567890AbCdEf1234567890",
        "sk-ant-api03-AbCdEf1234567890AbCdEf1234567890-xyz",
        "sk-AbCdEf1234567890AbCdEf1234567890",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "glpat-AbCdEf1234567890AbCd",
        "AIzaSyA-1234567890abcdefghijklmnopqrstu",
        "sk_live_AbCdEf1234567890AbCd",
        "npm_AbCdEf1234567890AbCdEf1234567890AbCd",
    ];
    for token in tokens {
        for text in [
            format!("got {token} back"),
            token.to_string(),
            format!("key=\"{token}\""),
            format!("(\"{token}\")"),
        ] {
            let out = redact(&text);
            assert!(!out.contains(token), "{token} leaked in {out:?}");
            assert!(out.contains(REDACTED), "{text:?} → {out:?}");
        }
    }
}

#[test]
fn private_key_blocks_are_redacted_even_when_cut_off() {
    let pem = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234\nabcd\n-----END RSA PRIVATE KEY-----\nafter";
    assert_eq!(redact(pem), "before\n[REDACTED]\nafter");
    let openssh = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
    assert_eq!(redact(openssh), REDACTED);
    let cut = "key:\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC";
    assert!(!redact(cut).contains("MIIEvQ"));
    let public = "-----BEGIN PUBLIC KEY-----\nMFkwEwYH\n-----END PUBLIC KEY-----";
    assert_eq!(redact(public), public);
}

#[test]
fn url_passwords_are_redacted() {
    assert_eq!(
        redact("DATABASE=postgres://app:hunter2@db:5432/main"),
        "DATABASE=postgres://app:[REDACTED]@db:5432/main"
    );
    assert_eq!(
        redact("see https://example.com:8080/a@b"),
        "see https://example.com:8080/a@b"
    );
}

#[test]
fn ordinary_text_is_left_alone() {
    for text in [
        "max_tokens=4096",
        "the token expired, log in again",
        "tokenizer: bpe",
        "token_count: 12",
        "password_file=/run/secrets/db",
        "if token == expected {",
        "Basic usage of the API",
        "the bearer of bad news",
        "task-sk-short",
        "risk-free ghp_short",
        "TOKEN=$GITHUB_TOKEN make release",
        "curl -H \"Authorization: Bearer $TOKEN\" https://x.io",
        "{\"token\": null, \"cookie\": true}",
        "日本語のテキスト password",
    ] {
        assert_eq!(redact(text), text, "changed: {text}");
    }
}

#[test]
fn redaction_is_idempotent() {
    let once = redact(
        "token=abc password: x ghp_aBcD1234aBcD1234aBcD1234 Authorization: Bearer abcdefgh1",
    );
    assert_eq!(redact(&once), once);
}

#[test]
fn secret_key_names() {
    for key in [
        "GH_TOKEN",
        "aws_secret_access_key",
        "accessToken",
        "X-CSRF-Token",
        "signingKey",
    ] {
        assert!(is_secret_key(key), "{key}");
    }
    for key in [
        "max_tokens",
        "key",
        "monkey",
        "keyboard",
        "token_type",
        "session_id",
        "author",
    ] {
        assert!(!is_secret_key(key), "{key}");
    }
}
