//! One question, one answer: the shortest program that uses the library.
use claude_agent::prelude::*;

#[tokio::main]
async fn main() -> claude_agent::Result<()> {
    let answer = query("What is 2 + 2?", Options::new()).text().await?;
    println!("{answer}");
    Ok(())
}
