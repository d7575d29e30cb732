//! A component of an unrelated world: `cm plugin add` must refuse it.

wit_bindgen::generate!({ world: "greeter", path: "wit" });

struct Greeter;

impl exports::test::greeter::greet::Guest for Greeter {
    fn hello(name: String) -> String {
        format!("hello {name}")
    }
}

export!(Greeter);
