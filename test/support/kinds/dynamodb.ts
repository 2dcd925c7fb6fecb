process.env.TEMPMAIL_TEST_KIND = 'dynamodb';
