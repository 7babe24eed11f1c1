use crate::common::*;
use upstream_sandbox::ssbtgu::example_request;
use upstream_sandbox::{testnr, Dataset};

#[tokio::test]
async fn tax_items_for_an_active_company() {
    let sb = start();
    let c = client();
    let ds = Dataset::standard();
    let (status, body) = ssbtgu(
        &sb,
        &c,
        example_request(
            testnr::AB_TESTBOLAG_4,
            &["UD0033", "UD0001", "UD0029", "UD0031", "UD0051", "UD0002"],
            None,
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<ns2:GrundlaggandeUppgifterSvar SchemaVersion=\"2.5.0\""));
    assert!(body.contains("<ns3:Organisationsnummer>5560021361</ns3:Organisationsnummer>"));
    let t = ds.company(testnr::AB_TESTBOLAG_4).unwrap().tax.unwrap();
    let yn = |b: bool| if b { "Ja" } else { "Nej" };
    let ud29 = item(&body, "UD0029").unwrap();
    assert!(ud29.contains("<Organisationsnummer>2021005448</Organisationsnummer>"));
    assert!(ud29.contains("<PartNamn>Skatteverket</PartNamn>"));
    assert!(ud29.contains(&format!(
        "<ns3:Skatteform>{}</ns3:Skatteform>",
        yn(t.f_skatt)
    )));
    assert!(item(&body, "UD0031").unwrap().contains(&format!(
        "<ns3:Momsregistrerad>{}</ns3:Momsregistrerad>",
        yn(t.moms)
    )));
    assert!(item(&body, "UD0033").unwrap().contains(&format!(
        "<ns3:Arbetsgivarregistrerad>{}</ns3:Arbetsgivarregistrerad>",
        yn(t.arbetsgivare)
    )));
    assert!(item(&body, "UD0001")
        .unwrap()
        .contains("Testbolag 4 bokat av SKV Aktiebolag"));
    assert!(item(&body, "UD0002")
        .unwrap()
        .contains("<ns3:JuridiskFormKod>49</ns3:JuridiskFormKod>"));
    assert!(item(&body, "UD0051")
        .unwrap()
        .contains("<ns3:AntalAnstalldaStorleksklassKod>"));
    // XSD order, whatever the request order.
    let order: Vec<usize> = ["UD0001", "UD0002", "UD0029", "UD0031", "UD0033", "UD0051"]
        .iter()
        .map(|u| body.find(&format!("<ns2:{u}>")).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]));
    sb.stop().await;
}

#[tokio::test]
async fn unknown_missing_and_ambiguous() {
    let sb = start();
    let c = client();
    let ds = Dataset::standard();
    let (status, body) = ssbtgu(
        &sb,
        &c,
        example_request(&ds.unknown_orgnr(), &["UD0001", "UD0029"], None),
    )
    .await;
    assert_eq!(status, 200);
    for ud in ["UD0001", "UD0029"] {
        assert!(
            item(&body, ud)
                .unwrap()
                .contains("<ns5:Fel Typ=\"ForetagFinnsEj\" Kalla=\"Dataproducent\">"),
            "{ud}"
        );
    }

    let (_, body) = ssbtgu(
        &sb,
        &c,
        example_request(testnr::AB_MISSING_AT_SCB, &["UD0002", "UD0029"], None),
    )
    .await;
    assert!(item(&body, "UD0002")
        .unwrap()
        .contains("Typ=\"ForetagFinnsEj\""));
    assert!(item(&body, "UD0029")
        .unwrap()
        .contains("<ns3:Skatteform>Ja</ns3:Skatteform>"));

    let (_, body) = ssbtgu(
        &sb,
        &c,
        example_request(testnr::SOLE_TRADER_THREE, &["UD0001", "UD0029"], None),
    )
    .await;
    assert!(item(&body, "UD0001")
        .unwrap()
        .contains("Typ=\"TvetydigBegaran\""));
    assert!(item(&body, "UD0029")
        .unwrap()
        .contains("<ns3:Skatteform>Ja</ns3:Skatteform>"));
    let (_, body) = ssbtgu(
        &sb,
        &c,
        example_request(testnr::SOLE_TRADER_THREE, &["UD0001", "UD0020"], Some(1)),
    )
    .await;
    assert!(item(&body, "UD0001")
        .unwrap()
        .contains("[REDACTED TEST NAME 1]"));
    assert!(item(&body, "UD0020")
        .unwrap()
        .contains("<ns3:FysiskPersonNamn>"));
    assert!(body.contains("<ns3:Namnskyddslopnummer>1</ns3:Namnskyddslopnummer>"));

    let bankrupt = ds.bankrupt().unwrap();
    let (_, body) = ssbtgu(&sb, &c, example_request(&bankrupt.id, &["UD0027"], None)).await;
    assert!(item(&body, "UD0027")
        .unwrap()
        .contains("<ns3:Avveckling Typ=\"Konkurs\">"));
    sb.stop().await;
}

#[tokio::test]
async fn malformed_requests_get_a_soap_fault() {
    let sb = start();
    let c = client();
    for xml in [
        "<not-xml".to_owned(),
        "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><x/></soap:Body></soap:Envelope>".to_owned(),
        example_request(testnr::EK, &["UD9999"], None),
        example_request(testnr::EK, &["UD0001"], None).replace("<md:MeddelandeId>", "<md:Ignored>").replace("</md:MeddelandeId>", "</md:Ignored>"),
    ] {
        let (status, body) = ssbtgu(&sb, &c, xml.clone()).await;
        assert_eq!(status, 500, "{xml}");
        assert!(body.contains("<faultcode>soap:Client</faultcode>"), "{body}");
        assert!(body.contains("<ns5:Servicefel SchemaVersion=\"2.5.0\""));
        assert!(body.contains("Typ=\"OgiltigBegaran\""));
    }
    sb.stop().await;
}
